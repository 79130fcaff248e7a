"""Index changes without blocking writes: CREATE/DROP INDEX CONCURRENTLY on plain tables;
on partitioned tables the parent ON ONLY, each partition CONCURRENTLY and attached, then
a catalog-only swap. A changed index is built beside the old one under a temporary name,
then swapped in (expand, then contract)."""

from __future__ import annotations

from agentddl.generator.delta.context import Context, Outcome, temp_name
from agentddl.generator.delta.types import Difference, PartitionedIndex, Step
from agentddl.generator.model import Index
from agentddl.generator.render.ddl import index_sql

SUE = "SHARE UPDATE EXCLUSIVE"
AE = "ACCESS EXCLUSIVE"


def index_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    for difference in ctx.of("index"):
        outcome.take(difference)
        if ctx.partitioned(difference.key[1]):
            outcome.steps += _partitioned(ctx, difference)
        else:
            outcome.steps += _plain(ctx, difference)
    return outcome


def _model_index(ctx: Context, difference: Difference) -> Index:
    table, name = difference.key[1], difference.key[2]
    return next(i for i in ctx.new.table(table).indexes if i.name == name)


def _concurrently(sql: str) -> str:
    return sql.replace(" INDEX ", " INDEX CONCURRENTLY ", 1)


def _plain(ctx: Context, difference: Difference) -> list[Step]:
    table, name = difference.key[1], difference.key[2]
    rel = ctx.rel(table)
    if difference.removed:
        return [
            Step(
                "contract",
                f"drop index {name} on {table} (no access path needs it any more)",
                (f"DROP INDEX CONCURRENTLY IF EXISTS {ctx.schema}.{name}",),
                "alone",
                SUE,
                (rel,),
                "catalog",
                "build it again CONCURRENTLY (the downgrade does)",
            )
        ]
    index = _model_index(ctx, difference)
    built = name if difference.added else temp_name(name)
    build = Step(
        "expand",
        f"build index {built} on {table} CONCURRENTLY ({index.why})",
        (
            f"DROP INDEX CONCURRENTLY IF EXISTS {ctx.schema}.{built}",
            _concurrently(index_sql(ctx.new, index, built)),
        ),
        "alone",
        SUE,
        (rel,),
        "build",
        f"DROP INDEX CONCURRENTLY IF EXISTS {ctx.schema}.{built} (a failed build leaves it invalid)",
    )
    if difference.added:
        return [build]
    swap = Step(
        "contract",
        f"swap in the new {name}: drop the old one CONCURRENTLY, rename {built}",
        (
            f"DROP INDEX CONCURRENTLY IF EXISTS {ctx.schema}.{name}",
            f"ALTER INDEX IF EXISTS {ctx.schema}.{built} RENAME TO {name}",
        ),
        "alone",
        SUE,
        (rel,),
        "catalog",
        "the downgrade builds the previous definition the same way",
    )
    return [build, swap]


def _partitioned(ctx: Context, difference: Difference) -> list[Step]:
    table, name = difference.key[1], difference.key[2]
    rel = ctx.rel(table)
    if difference.removed:
        return [_drop_partitioned(ctx, table, name, None)]
    index = _model_index(ctx, difference)
    built = name if difference.added else temp_name(name)
    create = index_sql(ctx.new, index, built)
    on_table = f" ON {rel} "
    definition = create.split(on_table, 1)[1]
    steps = [
        Step(
            "expand",
            f"create the partitioned index {built} on {table} ON ONLY (invalid until every "
            "partition has its index)",
            (create.replace(on_table, f" ON ONLY {rel} ").replace(" INDEX ", " INDEX IF NOT EXISTS ", 1),),
            "locked",
            "SHARE",
            (rel,),
            "catalog",
            f"DROP INDEX IF EXISTS {ctx.schema}.{built}",
        ),
        Step(
            "expand",
            f"build {built} on each partition of {table} CONCURRENTLY and attach it (the "
            "partitions that exist when the migration runs; new ones get it from PostgreSQL)",
            (),
            "partitions",
            SUE,
            (f"{rel} partitions",),
            "build",
            f"DROP INDEX IF EXISTS {ctx.schema}.{built} drops the attached partition indexes",
            partitioned=PartitionedIndex(ctx.new.schema, table, built, definition),
        ),
    ]
    if not difference.added:
        steps.append(_drop_partitioned(ctx, table, name, built))
    return steps


def _drop_partitioned(ctx: Context, table: str, name: str, replacement: str | None) -> Step:
    """PostgreSQL cannot drop a partitioned index CONCURRENTLY: a catalog-only DROP under a
    short lock_timeout, retried, with the replacement renamed in the same transaction."""
    statements = [f"DROP INDEX IF EXISTS {ctx.schema}.{name}"]
    if replacement:
        statements.append(f"ALTER INDEX {ctx.schema}.{replacement} RENAME TO {name}")
    what = f"swap in the new {name} on {table}" if replacement else f"drop index {name} on {table}"
    # The old index goes only once the new one is valid on every partition.
    guard = f"(SELECT indisvalid FROM pg_index WHERE indexrelid = '{ctx.schema}.{replacement}'::regclass)"
    return Step(
        "contract",
        f"{what} (a partitioned index is dropped in one short catalog-only transaction)",
        tuple(statements),
        "locked",
        AE,
        (ctx.rel(table), f"{ctx.rel(table)} partitions"),
        "catalog",
        "the downgrade builds the previous definition the same way",
        guard=guard if replacement else None,
        lint_ignores=(
            (
                "require-concurrent-index-deletion",
                "PostgreSQL cannot drop a partitioned index CONCURRENTLY: catalog-only, "
                "under a short lock_timeout, retried",
            ),
        ),
    )
