"""ADL102: DROP INDEX without CONCURRENTLY."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast, enums

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import qualified_name


class RequireConcurrentIndexDeletion(Rule):
    """
    ## What it does
    Flags `DROP INDEX` without `CONCURRENTLY` for an index that existed before this
    migration. Dropping an index created earlier in the same migration is not flagged.

    ## Why is this bad?
    A plain `DROP INDEX` takes an ACCESS EXCLUSIVE lock on the index's table: while it
    waits for running queries to finish, every new read and write of the table queues
    behind it. `DROP INDEX CONCURRENTLY` waits for those queries without blocking others.

    ## Example
    ```sql
    DROP INDEX agent.idx_runs_status;
    ```

    ## Use instead
    ```sql
    DROP INDEX CONCURRENTLY IF EXISTS agent.idx_runs_status;
    ```
    `CONCURRENTLY` drops one index per statement, cannot `CASCADE`, cannot run in a
    transaction block, and is not supported for an index on a partitioned parent
    (drop that one plainly, with a short `lock_timeout`).

    ## In an Alembic migration
    ```python
    with op.get_context().autocommit_block():
        op.drop_index("idx_runs_status", table_name="runs", schema="agent",
                      postgresql_concurrently=True)
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-dropindex.html
    """

    code = "ADL102"
    name = "require-concurrent-index-deletion"
    severity = "error"
    node_types = (ast.DropStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, ast.DropStmt) or node.removeType != enums.ObjectType.OBJECT_INDEX:
            return
        if node.concurrent:
            return
        existing = [qualified_name(n, context) for n in node.objects or ()]
        existing = [index for index in existing if not context.is_new(index)]
        if not existing:
            return
        names = ", ".join(str(index) for index in existing)
        yield Violation(
            message=f"Dropping {names} locks its table against reads and writes"
            " (ACCESS EXCLUSIVE) while it waits for running queries.",
            fix=_fix(context),
        )


def _fix(context: Context) -> str:
    if context.runner == "alembic":
        return (
            "Use op.drop_index(..., postgresql_concurrently=True) inside"
            " op.get_context().autocommit_block(), one index per call."
        )
    return "Use DROP INDEX CONCURRENTLY, one index per statement, outside a transaction block."
