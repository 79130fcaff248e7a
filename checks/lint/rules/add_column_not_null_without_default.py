"""ADL206: ADD COLUMN ... NOT NULL without a DEFAULT on an existing table."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.columns import (
    added_columns,
    column_constraints,
    default_expression,
    existing_altered_table,
    is_serial,
)

FAST_DEFAULT_SINCE = 11  # a non-volatile DEFAULT no longer rewrites the table
# Constraints that fill a new column in by themselves.
_FILLED = (ConstrType.CONSTR_IDENTITY, ConstrType.CONSTR_GENERATED)
_NOT_NULL = (ConstrType.CONSTR_NOTNULL, ConstrType.CONSTR_PRIMARY)


class AddColumnNotNullWithoutDefault(Rule):
    """
    ## What it does
    Flags a `NOT NULL` column without a default added to a table that existed
    before this migration.

    Flags `ALTER TABLE ... ADD COLUMN c type NOT NULL` (or `PRIMARY KEY`, which implies
    NOT NULL) without a `DEFAULT`, on a table that existed before this migration.
    Identity, serial and generated columns fill themselves in and are not flagged
    here (see add-generated-or-serial-column); `DEFAULT NULL` counts as no default.

    ## Why is this bad?
    Every existing row gets NULL in the new column, which violates NOT NULL: the
    statement fails (`column "c" of relation "t" contains null values`) on any table
    with rows. It passes on an empty development database and breaks the deploy in
    production, after taking an ACCESS EXCLUSIVE lock.

    ## Example
    ```sql
    ALTER TABLE agent.runs ADD COLUMN priority int NOT NULL;
    ```

    ## Use instead
    On PostgreSQL 11+ a constant (or stable, like `now()`) default is stored once in
    the catalog, without touching the rows:
    ```sql
    ALTER TABLE agent.runs ADD COLUMN priority int NOT NULL DEFAULT 0;
    ```
    When there is no sensible default (or before 11): add the column nullable, backfill
    it in batches, then make it NOT NULL (see set-not-null-requires-check).

    ## In an Alembic migration
    ```python
    op.add_column("runs", sa.Column("priority", sa.Integer(), nullable=False,
                                    server_default=sa.text("0")), schema="agent")
    ```
    `default=` (a Python-side default) is not a server default: the column still
    arrives without one.

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-ADD-COLUMN
    - https://www.postgresql.org/docs/current/ddl-alter.html#DDL-ALTER-ADDING-A-COLUMN
    """

    code = "ADL206"
    name = "add-column-not-null-without-default"
    severity = "error"
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node, table = statement.node, existing_altered_table(statement, context)
        if table is None:
            return
        for column in added_columns(node):
            if _fails_on_existing_rows(column):
                yield Violation(
                    message=(
                        f"Adding NOT NULL column {column.colname} without a default fails "
                        f"as soon as {table} has a row."
                    ),
                    fix=_fix(context),
                )


def _fails_on_existing_rows(column: ast.ColumnDef) -> bool:
    if not column_constraints(column, *_NOT_NULL) or column_constraints(column, *_FILLED):
        return False
    return default_expression(column) is None and not is_serial(column)


def _fix(context: Context) -> str:
    if context.pg_version >= FAST_DEFAULT_SINCE:
        return (
            "Add a constant DEFAULT (no rewrite on PostgreSQL 11+), or add the column "
            "nullable, backfill it in batches, then make it NOT NULL."
        )
    return (
        "Before PostgreSQL 11 a DEFAULT rewrites the table: add the column nullable, "
        "backfill it in batches, then make it NOT NULL."
    )
