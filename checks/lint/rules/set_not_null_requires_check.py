"""ADL205: SET NOT NULL on an existing table without a validated CHECK (col IS NOT NULL)."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.existing_table import ExistingTableRule
from agentddl.checks.lint.types import Context, RelationName, Statement, Violation
from agentddl.checks.pg.not_null import CHECK_SKIPS_SCAN_SINCE, NOT_NULL_NOT_VALID_SINCE, unproven_not_null


class SetNotNullRequiresCheck(ExistingTableRule):
    """
    ## What it does
    Flags `SET NOT NULL` on an existing table unless a validated
    `CHECK (col IS NOT NULL)` proves the column first.

    Flags `ALTER TABLE ... ALTER COLUMN c SET NOT NULL` (and, on PostgreSQL 18,
    `ADD CONSTRAINT ... NOT NULL c` without `NOT VALID`) on a table that existed
    before this migration, unless earlier in this migration a `CHECK (c IS NOT NULL)`
    constraint on that table was validated: added without `NOT VALID`, or added
    `NOT VALID` and then `VALIDATE`d. A constraint added by an earlier migration and
    validated in this one counts when its name says what it checks (it names the
    column and contains `null`, or ends in `_nn`, e.g. `events_run_id_not_null`).
    Before PostgreSQL 12 it is always flagged, because those versions ignore such a
    CHECK and scan anyway.

    It also knows the column as it was: when `--schema-from` (or Alembic's
    `existing_nullable=False`) says the column is already NOT NULL, `SET NOT NULL`
    changes nothing and is not flagged. And `ADD PRIMARY KEY` (with or without `USING
    INDEX`) over a column the schema shows nullable is flagged too: PostgreSQL sets the
    column NOT NULL as part of adding the key, with the same full scan. With table sizes
    in the schema, the severity follows the table's size (info on a small table,
    warning on a medium one: see `table_size` in the configuration).

    ## Why is this bad?
    `SET NOT NULL` takes an ACCESS EXCLUSIVE lock and then reads every row to prove
    there is no NULL: no reads and no writes for the length of a full table scan.
    Since PostgreSQL 12 the scan is skipped when a valid CHECK constraint already
    proves the column is not null; that CHECK can be added `NOT VALID` (instantly) and
    validated under a lock that lets traffic continue. PostgreSQL 18 can do this
    directly with a `NOT NULL ... NOT VALID` constraint.

    ## Example
    ```sql
    ALTER TABLE agent.events ALTER COLUMN run_id SET NOT NULL;
    -- run_id is nullable: adding the key sets it NOT NULL, scanning the table
    ALTER TABLE agent.events ADD CONSTRAINT events_pkey PRIMARY KEY USING INDEX events_run_id_key;
    ```

    ## Use instead
    PostgreSQL 12 to 17:
    ```sql
    ALTER TABLE agent.events
        ADD CONSTRAINT events_run_id_not_null CHECK (run_id IS NOT NULL) NOT VALID;
    COMMIT;
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_id_not_null;
    ALTER TABLE agent.events ALTER COLUMN run_id SET NOT NULL;  -- no scan now
    ALTER TABLE agent.events DROP CONSTRAINT events_run_id_not_null;
    ```
    PostgreSQL 18:
    ```sql
    ALTER TABLE agent.events
        ADD CONSTRAINT events_run_id_not_null NOT NULL run_id NOT VALID;
    COMMIT;
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_id_not_null;
    ```

    ## In an Alembic migration
    ```python
    op.create_check_constraint("events_run_id_not_null", "events", "run_id IS NOT NULL",
                               schema="agent", postgresql_not_valid=True)
    with op.get_context().autocommit_block():
        op.execute("ALTER TABLE agent.events VALIDATE CONSTRAINT events_run_id_not_null")
    op.alter_column("events", "run_id", nullable=False, schema="agent")
    op.drop_constraint("events_run_id_not_null", "events", schema="agent")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-SET-DROP-NOT-NULL
    - https://www.postgresql.org/docs/release/12.0/ (SET NOT NULL skips the scan)
    """

    code = "ADL205"
    name = "set-not-null-requires-check"
    severity = "error"
    scales_with_table_size = True

    def check_table(self, statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
        for made in unproven_not_null(statement, context, table):
            yield (
                _key_scan(table, made.column, context) if made.by_key else _scan(table, made.column, context)
            )


def _scan(table: RelationName, column: str, context: Context) -> Violation:
    return Violation(
        message=(
            f"Setting {table}.{column} NOT NULL scans all of {table} under an "
            "ACCESS EXCLUSIVE lock that blocks reads and writes."
        ),
        fix=_fix(column, context),
    )


def _key_scan(table: RelationName, column: str, context: Context) -> Violation:
    return Violation(
        message=(
            f"{table}.{column} is nullable: adding this primary key sets it NOT NULL, "
            f"which scans all of {table} under an ACCESS EXCLUSIVE lock that blocks reads and writes."
        ),
        fix=f"Make {column} NOT NULL first without the long lock ({_fix(column, context)}); "
        "then add the key.",
    )


def _fix(column: str, context: Context) -> str:
    if context.pg_version < CHECK_SKIPS_SCAN_SINCE:
        return (
            "Before PostgreSQL 12 the scan cannot be skipped: run this in a maintenance "
            f"window, or keep a CHECK ({column} IS NOT NULL) constraint added NOT VALID "
            "and validated separately instead."
        )
    if context.pg_version >= NOT_NULL_NOT_VALID_SINCE:
        return (
            f"ADD CONSTRAINT ... NOT NULL {column} NOT VALID, then VALIDATE CONSTRAINT "
            "in a separate transaction."
        )
    return (
        f"ADD CONSTRAINT ... CHECK ({column} IS NOT NULL) NOT VALID, VALIDATE it in a "
        "separate transaction, then SET NOT NULL (no scan) and drop the CHECK."
    )
