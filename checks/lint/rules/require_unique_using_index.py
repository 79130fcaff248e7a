"""ADL203: UNIQUE / PRIMARY KEY built inline on an existing table."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast
from pglast.enums import ConstrType

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.columns import (
    added_columns,
    added_constraints,
    column_constraints,
    existing_altered_table,
)

_KINDS = (ConstrType.CONSTR_UNIQUE, ConstrType.CONSTR_PRIMARY)


class RequireUniqueUsingIndex(Rule):
    """
    ## What it does
    Flags a UNIQUE or PRIMARY KEY constraint added to an existing table that builds
    its own index instead of adopting a concurrently built one.

    Flags `ALTER TABLE ... ADD UNIQUE (...)` / `ADD PRIMARY KEY (...)` (and
    `ADD COLUMN ... UNIQUE | PRIMARY KEY`) on a table that existed before this
    migration, when the constraint builds its own index instead of adopting one with
    `USING INDEX`. Tables created earlier in the same migration are not flagged.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    The constraint's unique index is built while `ALTER TABLE` holds an ACCESS
    EXCLUSIVE lock: no reads and no writes until the whole table is indexed. Building
    the index first with `CREATE UNIQUE INDEX CONCURRENTLY` lets traffic continue, and
    `ADD CONSTRAINT ... USING INDEX` then only attaches it (a brief lock). A primary
    key also needs its columns `NOT NULL`; make them so safely first (see
    set-not-null-requires-check), or the attach scans the table.

    ## Example
    ```sql
    ALTER TABLE agent.operations
        ADD CONSTRAINT operations_key UNIQUE (tenant_id, idempotency_key);
    ```

    ## Use instead
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY operations_key
        ON agent.operations (tenant_id, idempotency_key);
    ALTER TABLE agent.operations
        ADD CONSTRAINT operations_key UNIQUE USING INDEX operations_key;
    ```

    ## In an Alembic migration
    ```python
    with op.get_context().autocommit_block():
        op.create_index("operations_key", "operations", ["tenant_id", "idempotency_key"],
                        unique=True, schema="agent", postgresql_concurrently=True)
    op.execute("ALTER TABLE agent.operations "
               "ADD CONSTRAINT operations_key UNIQUE USING INDEX operations_key")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-DESC-ADD-TABLE-CONSTRAINT-USING-INDEX
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    """

    code = "ADL203"
    name = "require-unique-using-index"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.AlterTableStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node, table = statement.node, existing_altered_table(statement, context)
        if table is None:
            return
        inline = [c for col in added_columns(node) for c in column_constraints(col, *_KINDS)]
        for constraint in (*added_constraints(node, *_KINDS), *inline):
            if constraint.indexname or constraint.without_overlaps:
                continue  # USING INDEX adopts a prebuilt index; WITHOUT OVERLAPS is ADL204's
            kind = "primary key" if constraint.contype == ConstrType.CONSTR_PRIMARY else "unique"
            yield Violation(
                message=(
                    f"Adding this {kind} constraint builds its index on {table} under an "
                    "ACCESS EXCLUSIVE lock that blocks reads and writes until it finishes."
                ),
                fix=(
                    f"CREATE UNIQUE INDEX CONCURRENTLY first, then ADD CONSTRAINT ... "
                    f"{'PRIMARY KEY' if kind == 'primary key' else 'UNIQUE'} USING INDEX."
                ),
            )
