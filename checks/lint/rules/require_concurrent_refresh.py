"""ADL303 require-concurrent-refresh."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.earlier import is_new


class RequireConcurrentRefresh(Rule):
    """`REFRESH MATERIALIZED VIEW` without `CONCURRENTLY` blocks every reader.

    ## What it does
    Flags `REFRESH MATERIALIZED VIEW` without `CONCURRENTLY` on a materialized view
    that existed before this migration. A view created earlier in the same migration
    (never read yet, and not refreshable concurrently while unpopulated) is not
    reported, nor is `WITH NO DATA`, which cannot be combined with `CONCURRENTLY`.
    `CONCURRENTLY` exists on every supported PostgreSQL version (9.4+), so the verdict
    does not depend on the target version.

    ## Why is this bad?
    A plain refresh takes an ACCESS EXCLUSIVE lock on the view and holds it while the
    whole query re-runs: every `SELECT` from the view waits for the refresh.
    `REFRESH MATERIALIZED VIEW CONCURRENTLY` computes the new contents beside the old
    ones and applies the difference under an EXCLUSIVE lock, which still lets readers
    in. It needs a unique index on the view (a plain, non-partial index on column
    names), and the view must already be populated.

    ## Example
    ```sql
    REFRESH MATERIALIZED VIEW agent.run_stats;
    ```

    ## Use instead
    ```sql
    -- once: CREATE UNIQUE INDEX CONCURRENTLY run_stats_key ON agent.run_stats (run_id);
    REFRESH MATERIALIZED VIEW CONCURRENTLY agent.run_stats;
    ```

    ## In an Alembic migration
    ```python
    op.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY agent.run_stats")
    ```
    A concurrent refresh may run inside the migration's transaction, but it keeps that
    transaction open for the whole refresh; consider running it outside the migration.

    ## References
    - https://www.postgresql.org/docs/current/sql-refreshmaterializedview.html
    """

    code = "ADL303"
    name = "require-concurrent-refresh"
    severity = "error"
    node_types = (ast.RefreshMatViewStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, ast.RefreshMatViewStmt) or node.concurrent or node.skipData:
            return
        if node.relation is None or is_new(node.relation, context):
            return
        view = relation_name(node.relation, context)
        yield Violation(
            message=f"Refreshing {view} without CONCURRENTLY blocks every read of it "
            "until the refresh finishes.",
            fix="Use REFRESH MATERIALIZED VIEW CONCURRENTLY; it needs a unique index on the view.",
        )
