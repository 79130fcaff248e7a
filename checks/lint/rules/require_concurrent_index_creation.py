"""ADL101: CREATE INDEX without CONCURRENTLY on a table that already exists."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import is_new_relation, relation_name

_PARTITIONED_HINT = (
    " On a partitioned table (CONCURRENTLY is not supported on the parent): CREATE INDEX"
    " ON ONLY the parent, CREATE INDEX CONCURRENTLY on each partition, then ALTER INDEX"
    " ... ATTACH PARTITION each one."
)


class RequireConcurrentIndexCreation(Rule):
    """
    ## What it does
    Flags `CREATE INDEX` without `CONCURRENTLY` on a table that existed before this
    migration, including one hidden in a `DO` block. An index on a table created
    earlier in the same migration, and `CREATE INDEX ON ONLY parent` (which builds
    nothing), are not flagged.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    A plain index build takes a SHARE lock on the table for the whole build: every
    INSERT, UPDATE and DELETE waits, for minutes on a large table. `CONCURRENTLY` takes
    SHARE UPDATE EXCLUSIVE, so writes continue while the index is built.

    ## Example
    ```sql
    CREATE INDEX idx_runs_status ON agent.runs (status);
    ```

    ## Use instead
    ```sql
    CREATE INDEX CONCURRENTLY idx_runs_status ON agent.runs (status);
    ```
    `CONCURRENTLY` cannot run inside a transaction block, and it is not supported on a
    partitioned parent: there, create the index `ON ONLY` the parent, build each
    partition's index concurrently and `ALTER INDEX parent_idx ATTACH PARTITION
    part_idx`; the parent index becomes valid once every partition is attached.

    ## In an Alembic migration
    ```python
    with op.get_context().autocommit_block():
        op.create_index("idx_runs_status", "runs", ["status"], schema="agent",
                        postgresql_concurrently=True)
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    - https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE
    """

    code = "ADL101"
    name = "require-concurrent-index-creation"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.IndexStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, ast.IndexStmt) or node.concurrent or node.relation is None:
            return
        if not node.relation.inh or is_new_relation(node.relation, context):
            return  # ON ONLY builds nothing; a new table is empty and unseen
        table = relation_name(node.relation, context)
        where = " (inside a DO block)" if statement.in_do_block else ""
        yield Violation(
            message=f"Building this index{where} blocks writes to {table} until it finishes.",
            fix=_fix(context) + _PARTITIONED_HINT,
        )


def _fix(context: Context) -> str:
    if context.runner == "alembic":
        return (
            "Use op.create_index(..., postgresql_concurrently=True) inside"
            " op.get_context().autocommit_block()."
        )
    return "Use CREATE INDEX CONCURRENTLY, outside any transaction block."
