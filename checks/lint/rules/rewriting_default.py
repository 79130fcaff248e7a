"""ADL207: ADD COLUMN with a default that rewrites the table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.types import Context, RelationName, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import (
    VOLATILE_FUNCTIONS,
    function_name,
    iter_nodes,
)
from agentddl.checks.pg.columns import (
    added_columns,
    column_constraints,
    default_expression,
    existing_altered_table,
)
from agentddl.checks.pg.earlier import function_volatility

FAST_DEFAULT_SINCE = 11  # non-volatile defaults are stored in the catalog, not the rows
# Columns whose values are computed for every row anyway: add-generated-or-serial-column.
_COMPUTED = (ConstrType.CONSTR_IDENTITY, ConstrType.CONSTR_GENERATED)


class RewritingDefault(Rule):
    """
    ## What it does
    Flags a column added with a default that rewrites the table: any default
    before PostgreSQL 11, a volatile one on every version.

    Flags `ALTER TABLE ... ADD COLUMN ... DEFAULT expr` on a table that existed before
    this migration when the default forces a table rewrite: any non-NULL default
    before PostgreSQL 11, and on every version a volatile one (`clock_timestamp()`,
    `random()`, `gen_random_uuid()`, `uuidv7()`, `nextval()`, `timeofday()` ...).
    Stable and immutable defaults (`now()`, `CURRENT_TIMESTAMP`, constants) are fine on
    11+. A default calling a user-defined function is flagged when this migration
    creates that function `VOLATILE` (or without a volatility, which means volatile);
    otherwise its volatility is unknown here and it is not flagged.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    Since PostgreSQL 11, a non-volatile default is evaluated once and stored in the
    catalog; existing rows are not touched. A volatile default must give each row its
    own value, so PostgreSQL rewrites the whole table (and rebuilds its indexes) under
    an ACCESS EXCLUSIVE lock: no reads, no writes, for as long as copying the table
    takes. Before 11 every default did that.

    ## Example
    ```sql
    ALTER TABLE agent.events ADD COLUMN event_uid uuid DEFAULT gen_random_uuid();
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.events ADD COLUMN event_uid uuid;
    ALTER TABLE agent.events ALTER COLUMN event_uid SET DEFAULT gen_random_uuid();
    -- backfill existing rows in batches:
    UPDATE agent.events SET event_uid = gen_random_uuid()
    WHERE id IN (SELECT id FROM agent.events WHERE event_uid IS NULL LIMIT 10000);
    ```
    `SET DEFAULT` only affects rows inserted later, so it takes a brief lock and
    rewrites nothing.

    ## In an Alembic migration
    ```python
    op.add_column("events", sa.Column("event_uid", sa.Uuid()), schema="agent")
    op.alter_column("events", "event_uid", schema="agent",
                    server_default=sa.text("gen_random_uuid()"))
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES
    - https://www.postgresql.org/docs/current/ddl-alter.html#DDL-ALTER-ADDING-A-COLUMN
    """

    code = "ADL207"
    name = "rewriting-default"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node, table = statement.node, existing_altered_table(statement, context)
        if table is None:
            return
        for column in added_columns(node):
            default = default_expression(column)
            if default is None or column_constraints(column, *_COMPUTED):
                continue
            then = _NOT_NULL_LATER if column_constraints(column, ConstrType.CONSTR_NOTNULL) else ""
            call = _volatile_call(default, context)
            if call is not None:
                yield _volatile(str(column.colname), call, table, then)
            elif context.pg_version < FAST_DEFAULT_SINCE:
                yield _before_11(str(column.colname), table, context.pg_version, then)


def _volatile_call(expr: Any, context: Context) -> str | None:
    """The first call in `expr` known to be volatile, as `name()`: a volatile built-in,
    or a function this migration created VOLATILE (the default for CREATE FUNCTION)."""
    for call in (n for n in iter_nodes(expr) if isinstance(n, ast.FuncCall)):
        name = function_name(call)
        if name in VOLATILE_FUNCTIONS or function_volatility(name, context) == "volatile":
            return f"{name}()"
    return None


_NOT_NULL_LATER = ", then make it NOT NULL"


def _volatile(column: str, call: str, table: RelationName, then: str) -> Violation:
    return Violation(
        message=(
            f"Adding column {column} with volatile default {call} rewrites all of {table} "
            "under an ACCESS EXCLUSIVE lock that blocks reads and writes."
        ),
        fix=(
            f"Add the column nullable without a default, SET DEFAULT {call} for new rows and "
            f"backfill existing rows in batches{then}."
        ),
    )


def _before_11(column: str, table: RelationName, version: int, then: str) -> Violation:
    return Violation(
        message=(
            f"On PostgreSQL {version}, adding column {column} with a default rewrites all of "
            f"{table} under an ACCESS EXCLUSIVE lock that blocks reads and writes."
        ),
        fix=(
            "Add the column nullable without a default, SET DEFAULT for new rows and backfill "
            f"existing rows in batches{then} (PostgreSQL 11+ stores a constant default "
            "without a rewrite)."
        ),
    )
