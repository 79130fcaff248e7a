"""ADL307 truncate."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.earlier import is_new


class Truncate(Rule):
    """`TRUNCATE` of an existing table deletes every row under ACCESS EXCLUSIVE.

    ## What it does
    Flags `TRUNCATE` of tables that existed before this migration. Tables created
    earlier in the same migration (scratch and staging tables) are not reported.

    ## Why is this bad?
    `TRUNCATE` removes every row at once, irreversibly once committed, and with
    `CASCADE` also empties every table with a foreign key to it. It takes an ACCESS
    EXCLUSIVE lock, so it waits behind every running query on the table and blocks all
    reads and writes queued after it. It fires no `ON DELETE` triggers, so audit or
    outbox triggers miss the deletion, and logical replication subscribers that do not
    replicate TRUNCATE keep the rows.

    ## Example
    ```sql
    TRUNCATE agent.events;
    ```

    ## Use instead
    If the data really must go, delete it in batches outside the migration:
    ```sql
    DELETE FROM agent.events
    WHERE id IN (SELECT id FROM agent.events WHERE created_at < '2025-01-01' LIMIT 5000);
    ```
    For time-partitioned data, detach and drop old partitions instead.

    ## In an Alembic migration
    Keep data removal out of schema revisions: run it as a separate, batched job. If a
    truncate is intended (a cache table nobody reads during the deploy), say so above
    the call:
    ```python
    # agentddl: ignore[truncate] rebuildable cache, read only by the nightly job
    op.execute("TRUNCATE agent.run_cache")
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-truncate.html
    - https://www.postgresql.org/docs/current/explicit-locking.html
    """

    code = "ADL307"
    name = "truncate"
    severity = "error"
    node_types = (ast.TruncateStmt,)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        node = statement.node
        if not isinstance(node, ast.TruncateStmt):
            return
        for range_var in node.relations or ():
            if not isinstance(range_var, ast.RangeVar) or is_new(range_var, context):
                continue
            yield Violation(
                f"TRUNCATE deletes every row of {relation_name(range_var, context)} for good "
                "and blocks all reads and writes of it while it waits and runs.",
                "Delete in batches outside the migration, or detach and drop old partitions.",
            )
