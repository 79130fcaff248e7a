"""CHECK and FOREIGN KEY changes without a validating scan under a strong lock: the new
constraint is added NOT VALID (instant), validated in a transaction of its own (a scan
that lets writes through), and only then swapped in for the old one by name."""

from __future__ import annotations

from agentddl.generator.delta.context import Context, Outcome, temp_name
from agentddl.generator.delta.types import Difference, Refusal, Step
from agentddl.generator.model import ForeignKey

AE = "ACCESS EXCLUSIVE"
SUE = "SHARE UPDATE EXCLUSIVE"


def constraint_steps(ctx: Context) -> Outcome:
    outcome = Outcome()
    for difference in ctx.of("check", "fk"):
        outcome.take(difference)
        table = difference.key[1]
        if difference.key[0] == "fk" and ctx.partitioned(table) and not difference.removed:
            outcome.refusals.append(_partitioned_fk(difference))
            continue
        outcome.steps += _steps(ctx, difference)
    return outcome


def _definition(ctx: Context, difference: Difference) -> tuple[str, tuple[str, ...]]:
    """The constraint's definition and the tables adding it locks."""
    table, name = difference.key[1], difference.key[2]
    model = ctx.new.table(table)
    if difference.key[0] == "check":
        check = next(c for c in model.checks if c.name == name)
        return f"CHECK ({check.expression})", (ctx.rel(table),)
    fk = next(f for f in model.foreign_keys if f.name == name)
    return _foreign_key(ctx, fk), (ctx.rel(table), ctx.rel(fk.ref_table))


def _foreign_key(ctx: Context, fk: ForeignKey) -> str:
    on_delete = "" if fk.on_delete == "NO ACTION" else f" ON DELETE {fk.on_delete}"
    return (
        f"FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {ctx.rel(fk.ref_table)} "
        f"({', '.join(fk.ref_columns)}){on_delete}"
    )


def _steps(ctx: Context, difference: Difference) -> list[Step]:
    table, name = difference.key[1], difference.key[2]
    if difference.removed:
        return [_drop(ctx.rel(table), table, name)]
    added = name if difference.added else temp_name(name)
    definition, tables = _definition(ctx, difference)
    steps = _add_and_validate(ctx.rel(table), table, added, definition, tables)
    if not difference.added:
        steps.append(_swap(ctx.rel(table), name, added, tables))
    return steps


def _drop(rel: str, table: str, name: str) -> Step:
    return Step(
        "contract",
        f"drop constraint {name} on {table}",
        (f"ALTER TABLE {rel} DROP CONSTRAINT IF EXISTS {name}",),
        "locked",
        AE,
        (rel,),
        "catalog",
        "the downgrade adds it again NOT VALID and validates it",
    )


def _add_and_validate(
    rel: str, table: str, added: str, definition: str, tables: tuple[str, ...]
) -> list[Step]:
    # ADD ... NOT VALID alone takes SHARE ROW EXCLUSIVE for a foreign key, but dropping a
    # leftover of an interrupted run first takes ACCESS EXCLUSIVE: both catalog-only
    lock = AE
    steps = [
        Step(
            "expand",
            f"add constraint {added} on {table} NOT VALID (enforced for new rows at once)",
            (
                f"ALTER TABLE {rel} DROP CONSTRAINT IF EXISTS {added}",
                f"ALTER TABLE {rel} ADD CONSTRAINT {added} {definition} NOT VALID",
            ),
            "locked",
            lock,
            tables,
            "catalog",
            f"ALTER TABLE {rel} DROP CONSTRAINT IF EXISTS {added}",
        ),
        Step(
            "validate",
            f"validate {added}: reads every row of {table}, writes continue",
            (f"ALTER TABLE {rel} VALIDATE CONSTRAINT {added}",),
            "plain",
            SUE,
            tables[:1],
            "scan",
            f"nothing to undo: a failed VALIDATE leaves {added} NOT VALID, still checking new rows; "
            f"fix the rows it names, then re-run",
        ),
    ]
    return steps


def _swap(rel: str, name: str, added: str, tables: tuple[str, ...]) -> Step:
    return Step(
        "contract",
        f"swap in the new {name}: drop the old one, rename {added}",
        (
            f"ALTER TABLE {rel} DROP CONSTRAINT IF EXISTS {name}",
            f"ALTER TABLE {rel} RENAME CONSTRAINT {added} TO {name}",
        ),
        "locked",
        AE,
        tables,  # a foreign key's triggers live on both tables
        "catalog",
        "the downgrade swaps the previous definition back the same way",
    )


def _partitioned_fk(difference: Difference) -> Refusal:
    table, name = difference.key[1], difference.key[2]
    return Refusal(
        f"{table}.{name}",
        f"foreign key {table}.{name} changes",
        "a foreign key on a partitioned table cannot be added NOT VALID before PostgreSQL 18, "
        "so adding it validates every partition under a lock",
        (
            "expand: add the new foreign key NOT VALID on each partition, one at a time",
            "validate: VALIDATE CONSTRAINT on each partition in its own transaction",
            "switch: add the partitioned table's foreign key (it finds the validated ones)",
            "contract: drop the old foreign key, then record the profile with "
            "`agentddl generate PROFILE --out DIR --dsn DB`",
        ),
    )
