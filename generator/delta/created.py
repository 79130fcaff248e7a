"""New tables and new nullable columns (a part of the model switched on), and their way
back: the one kind of addition that is online by construction. A new table is empty, so
it is created whole in one short transaction, constraints validated and indexes built on
nothing, as the owner role (it belongs to it, like every table); only its foreign keys
lock their parents (SHARE ROW EXCLUSIVE, briefly). A nullable column without a default
is a catalog-only ALTER TABLE. The downgrade drops them, data and all (contract)."""

from __future__ import annotations

from sqlalchemy.schema import CreateTable

from agentddl.generator.delta.context import Context, Outcome
from agentddl.generator.delta.types import Difference, Step
from agentddl.generator.model import Table
from agentddl.generator.model.blocks import compression, quote, storage
from agentddl.generator.model.privileges import grant_statements, row_level_security
from agentddl.generator.model.scope import Scope
from agentddl.generator.render.ddl import compile_ddl, index_sql
from agentddl.generator.render.sqla import metadata

AE = "ACCESS EXCLUSIVE"
SRE = "SHARE ROW EXCLUSIVE"
_DROP_REASON = (
    "drop-breaks-running-code",
    "the profile switched this part of the model off: deploy code that no longer uses it first",
)


def created_steps(ctx: Context) -> Outcome:
    """Steps for added and removed tables and nullable columns; every difference they
    cover is taken, so no other builder sees it."""
    outcome = Outcome()
    old = {t.name: t for t in ctx.old.tables}
    new = {t.name: t for t in ctx.new.tables}
    for table in ctx.new.tables:
        if table.name not in old and table.partitioning is None:
            outcome.take(*_of_table(ctx, table.name))
            outcome.steps.append(_create(ctx, table))
    for table in reversed(ctx.old.tables):  # children before their parents
        if table.name not in new and table.partitioning is None:
            outcome.take(*_of_table(ctx, table.name))
            outcome.steps.append(_drop(ctx, table))
    for table in (t for t in ctx.new.tables if t.name in old):
        outcome.merge(_columns(ctx, table.name))
    return outcome


def _of_table(ctx: Context, table: str) -> list[Difference]:
    """Every difference about `table`, its grants included."""
    target = f" ON {ctx.rel(table)} TO "
    return [d for d in ctx.differences if d.key[1] == table or (d.key[0] == "grant" and target in d.key[2])]


def _create(ctx: Context, table: Table) -> Step:
    scope = Scope(ctx.new.profile)
    statements = [
        f"SET LOCAL ROLE {quote(ctx.new.profile.role('owner'))}",
        compile_ddl(CreateTable(metadata(ctx.new).tables[f"{ctx.new.schema}.{table.name}"])),
        *_comments(ctx, table),
        *(index_sql(ctx.new, index) for index in table.indexes),
        *(b.sql for b in (storage(scope, table), compression(scope, table)) if b is not None),
        *(s for b in row_level_security(scope, (table,)) for s in b.sql.split(";\n")),
        *(g for g in grant_statements(scope, (table,)) if f" ON {ctx.rel(table.name)} TO " in g),
        f"GRANT SELECT ON {ctx.rel(table.name)} TO {quote(ctx.new.profile.role('readonly'))}",
    ]
    parents = sorted({fk.ref_table for fk in table.foreign_keys if fk.ref_table != table.name})
    held = f" (its foreign keys hold {SRE} on {', '.join(parents)} briefly)" if parents else ""
    return Step(
        "expand",
        f"create table {table.name} ({table.comment.rstrip('.')}) with its constraints, "
        f"indexes and grants: new and empty, so nothing to scan or build{held}",
        tuple(statements),
        "locked",
        AE,  # on the new table only, which nothing uses yet
        (ctx.rel(table.name), *(ctx.rel(p) for p in parents)),
        "catalog",
        "the downgrade drops the table",
    )


def _comments(ctx: Context, table: Table) -> list[str]:
    def text(value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    rel = ctx.rel(table.name)
    found = [f"COMMENT ON TABLE {rel} IS {text(table.comment)}"] if table.comment else []
    columns = [c for c in table.columns if c.comment]
    return found + [f"COMMENT ON COLUMN {rel}.{c.name} IS {text(c.comment)}" for c in columns]


def _drop(ctx: Context, table: Table) -> Step:
    parents = sorted({fk.ref_table for fk in table.foreign_keys if fk.ref_table != table.name})
    return Step(
        "contract",
        f"drop table {table.name} and its rows (its part of the model is switched off)",
        (f"DROP TABLE {ctx.rel(table.name)}",),
        "locked",
        AE,
        (ctx.rel(table.name), *(ctx.rel(p) for p in parents)),
        "catalog",
        "the downgrade creates the table again, empty",
        lint_ignores=(_DROP_REASON,),
    )


def _columns(ctx: Context, table: str) -> Outcome:
    """Added nullable columns without a default: ADD COLUMN (catalog only); removed ones
    that were: DROP COLUMN. Anything else about a column is left to refusal."""
    outcome = Outcome()
    for d in ctx.of("column"):
        if d.key[1] != table or not (d.added or d.removed):
            continue
        column = d.new if d.added else d.old
        related = [x for x in ctx.differences if x.key[1:] == d.key[1:] and x.key[0] != "column"]
        if not column[1] or any(x.key[0] == "default" and (x.new if d.added else x.old) for x in related):
            continue
        outcome.take(d, *related)
        outcome.steps.append(_add_column(ctx, d, related) if d.added else _drop_column(ctx, d))
    return outcome


def _add_column(ctx: Context, d: Difference, related: list[Difference]) -> Step:
    rel, name = ctx.rel(d.key[1]), d.key[2]
    statements = [f"ALTER TABLE {rel} ADD COLUMN {name} {d.new[0]}"]
    comment = next((x.new for x in related if x.key[0] == "column_comment" and x.new), None)
    if comment:
        statements.append(f"COMMENT ON COLUMN {rel}.{name} IS '" + str(comment).replace("'", "''") + "'")
    return Step(
        "expand",
        f"add column {d.key[1]}.{name} {d.new[0]} (nullable, no default: catalog only)",
        tuple(statements),
        "locked",
        AE,
        (rel,),
        "catalog",
        "the downgrade drops the column",
    )


def _drop_column(ctx: Context, d: Difference) -> Step:
    rel = ctx.rel(d.key[1])
    return Step(
        "contract",
        f"drop column {d.key[1]}.{d.key[2]} (its part of the model is switched off)",
        (f"ALTER TABLE {rel} DROP COLUMN {d.key[2]}",),
        "locked",
        AE,
        (rel,),
        "catalog",
        "the downgrade adds the column again, empty",
        lint_ignores=(_DROP_REASON,),
    )
