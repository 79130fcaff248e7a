"""ADL309 unbatched-backfill."""

from __future__ import annotations

from collections.abc import Iterator

from pglast import ast

from agentddl.checks.lint.types import Context, Rule, Statement, Violation
from agentddl.checks.pg.ast_helpers import relation_name
from agentddl.checks.pg.batching import unbounded_writes
from agentddl.checks.pg.earlier import is_new


class UnbatchedBackfill(Rule):
    """An `UPDATE` or `DELETE` of a whole existing table in one statement.

    ## What it does
    Flags `UPDATE` and `DELETE` of a table that existed before this migration when the
    `WHERE` clause does not bound the rows it touches, also as a data-modifying `WITH`
    (`WITH moved AS (DELETE ... RETURNING *) INSERT INTO archive SELECT * FROM moved`).
    The test is syntactic:

    - **bounded** (not flagged): an equality or `IN` list on a column the statement
      does not `SET` (`WHERE id = 42`, `WHERE email = 'a@b.c'`), a two-sided range
      (`id BETWEEN 1 AND 10000`, `id >= $1 AND id < $2`), a `LIMIT`ed subquery
      (`id IN (SELECT id ... LIMIT 5000)`, a `LIMIT`ed CTE joined in), `CURRENT OF`;
    - **unbounded** (flagged): no `WHERE`, `col IS NULL`, `col <> value`, one-sided
      ranges (`created_at < now() - interval '90 days'`), a filter on the column being
      set (`SET status = 'b' WHERE status = 'a'`), a join to another table.

    Tables created earlier in the same migration are not reported. The rule cannot
    know a table's size: a backfill of a ten-row lookup table is reported too;
    suppress it with a reason.

    With production's table sizes (`--sizes-from`, or `table_rows` in the
    configuration), the severity follows the size of the table
    it works on: info on a small table, warning on a medium one (`table_size` in the
    configuration); the message says the size.

    ## Why is this bad?
    One statement updating or deleting millions of rows holds a row lock on every row
    it touched until it commits, so application writes to those rows queue behind it;
    it writes a new version of every row (table and index bloat), produces WAL in one
    burst that replicas must replay (replication lag), and if anything fails the whole
    batch rolls back. Inside a migration's transaction it also keeps every lock the
    migration took (see `access-exclusive-with-slow-work`).

    ## Example
    ```sql
    UPDATE agent.runs SET priority = 0 WHERE priority IS NULL;
    DELETE FROM agent.events WHERE created_at < now() - interval '90 days';
    ```

    ## Use instead
    Batch by key, commit between batches, and run it outside the schema migration
    (a script, or a DO block / procedure that COMMITs per batch on PostgreSQL 11+):
    ```sql
    UPDATE agent.runs SET priority = 0
    WHERE id IN (SELECT id FROM agent.runs WHERE priority IS NULL LIMIT 5000);
    -- repeat until it updates 0 rows
    ```

    ## In an Alembic migration
    Keep data backfills out of schema revisions: put the batched loop in a separate
    revision that runs in `op.get_context().autocommit_block()` and commits each
    batch, or in an application job deployed with the expand step.

    ## References
    - https://www.postgresql.org/docs/current/sql-update.html
    - https://www.postgresql.org/docs/current/routine-vacuuming.html
    - https://github.com/ankane/strong_migrations#backfilling-data
    """

    code = "ADL309"
    name = "unbatched-backfill"
    severity = "error"
    scales_with_table_size = True
    node_types = (ast.UpdateStmt, ast.DeleteStmt, ast.InsertStmt, ast.SelectStmt)

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        for node in unbounded_writes(statement.node, statement.in_do_block):
            if node.relation is None or is_new(node.relation, context):
                continue
            verb = "UPDATE" if isinstance(node, ast.UpdateStmt) else "DELETE"
            yield Violation(
                f"This {verb} touches every matching row of {relation_name(node.relation, context)} "
                "in one transaction: row locks, bloat and WAL grow with the table.",
                "Batch it by key (WHERE id IN (SELECT id ... LIMIT 5000)), commit between "
                "batches, and run it outside the schema migration.",
            )
