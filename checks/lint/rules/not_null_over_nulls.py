"""ADL215: SET NOT NULL (or a primary key) that existing NULLs make fail."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.lint.existing_table import ExistingTableRule
from agentddl.checks.lint.probe import column_sql, data_check, quoted
from agentddl.checks.lint.types import Context, RelationName, Statement, Violation
from agentddl.checks.pg.not_null import unproven_not_null
from agentddl.checks.pg.validated import validated_constraints


class NotNullOverNulls(ExistingTableRule):
    """
    ## What it does
    Flags a column of a table that existed before this migration made `NOT NULL` while
    its rows may hold NULLs: `ALTER COLUMN ... SET NOT NULL`, `ADD CONSTRAINT ... NOT
    NULL col` (PostgreSQL 18) and `ADD PRIMARY KEY` over a column known to be nullable,
    and (PostgreSQL 18) `VALIDATE CONSTRAINT` of a `NOT NULL ... NOT VALID` constraint
    added earlier in the migration or shown not validated by `--schema-from`. Whether
    it fails depends on the rows, so without a database it is a **warning** saying
    what to check. With `--schema-from postgresql://...` the linter asks that
    database, with one read-only `SELECT EXISTS (... WHERE col IS NULL)` under a
    statement_timeout: an **error** when a NULL is there (the message says what was
    counted and how long it took), nothing when none is, and the warning again when
    the check timed out or the table is changed earlier in the migration (a backfill
    `UPDATE` before it, say).

    Not flagged: a column already NOT NULL, and one a valid `CHECK (col IS NOT NULL)`
    proves first on PostgreSQL 12+ (the `VALIDATE` is where NULLs would fail; see
    set-not-null-requires-check, which reports the scan). A `NOT NULL` column added
    without a default fails on any row: add-column-not-null-without-default reports it.

    ## Why is this bad?
    PostgreSQL checks every row and fails at the first NULL ("column contains null
    values"), after scanning the table under an ACCESS EXCLUSIVE lock: the migration
    stops half-way, and the scan blocked every query on the table for nothing. The
    application may still be writing NULLs (an old release), so a table that was clean
    on staging may not be on production.

    ## Example
    ```sql
    ALTER TABLE agent.runs ALTER COLUMN trace_id SET NOT NULL;
    ```

    ## Use instead
    Backfill the NULLs in batches and deploy code that never writes one; check that
    none is left, then add the constraint (through a validated CHECK on PostgreSQL 12+):
    ```sql
    SELECT EXISTS (SELECT FROM agent.runs WHERE trace_id IS NULL);
    ```

    ## In an Alembic migration
    Put the batched backfill in its own revision before the one that calls
    `op.alter_column(..., nullable=False)`, or lint the rendered SQL with
    `--schema-from` pointing at production (read-only).

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-SET-DROP-NOT-NULL
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-NOT-NULL
    """

    code = "ADL215"
    name = "not-null-over-nulls"
    severity = "warning"

    def check_table(self, statement: Statement, context: Context, table: RelationName) -> Iterator[Violation]:
        for made in unproven_not_null(statement, context, table):
            yield _violation(context, table, made.column, f"Making {table}.{made.column} NOT NULL")
        for validated in validated_constraints(statement, context, table):
            if validated.kind == "not_null":
                for column in validated.columns:
                    yield _violation(context, table, column, f"Validating constraint {validated.name}")


def _violation(context: Context, table: RelationName, column: str, doing: str) -> Violation:
    query = f"SELECT FROM {quoted(table)} WHERE {column_sql(column)} IS NULL"
    return Violation(
        message=f"{doing} fails if a row of {table} holds a NULL in {column}.",
        fix=f"Check first (SELECT EXISTS ({query})) and backfill the NULLs in batches in an earlier step.",
        by_size=False,
        data_check=data_check(context, [table], query, f"NULLs in {table}.{column}"),
    )
