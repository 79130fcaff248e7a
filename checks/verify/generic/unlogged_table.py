"""ADV111 unlogged-table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.sql import not_extension_member


class UnloggedTable(Rule):
    """An `UNLOGGED` table (or partition) in a schema of durable state.

    ## What it does
    Reports tables and partitions (where rows live) whose persistence is
    `UNLOGGED`. A partitioned table's own mark is not reported: it holds no rows,
    and before 18 (which refuses unlogged partitioned tables) its partitions do not
    inherit it; each unlogged partition is reported instead.

    ## Why is this bad?
    An unlogged table is not written to the WAL: after a crash or an unclean
    shutdown PostgreSQL truncates it, and it is absent on streaming replicas and in
    point-in-time recovery. Runs, attempts, events and outbox rows in such a table
    vanish on the first failover: exactly the state a durable runtime exists to keep.

    ## Example
    ```sql
    CREATE UNLOGGED TABLE agent.outbox (...);
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.outbox SET LOGGED;  -- rewrites the table into the WAL
    ```
    Keep unlogged tables only for rebuildable caches, in a schema of their own.

    ## References
    - https://www.postgresql.org/docs/current/sql-createtable.html#SQL-CREATETABLE-UNLOGGED
    """

    code = "ADV111"
    name = "unlogged-table"
    severity = "warning"
    group = "generic"
    query = f"""
        SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name
        FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY(%(schemas)s) AND c.relkind = 'r' AND c.relpersistence = 'u'
          AND {not_extension_member("c")}
        ORDER BY 1
    """

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            yield self.finding(
                f"{row['table_name']} is unlogged: a crash empties it and replicas never see it.",
                f"ALTER TABLE {row['table_name']} SET LOGGED",
                object=row["table_name"],
            )
