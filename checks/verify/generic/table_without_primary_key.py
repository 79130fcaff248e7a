"""ADV105 table-without-primary-key."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Row, Rule, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.sql import not_extension_member


class TableWithoutPrimaryKey(Rule):
    """A table (or partitioned table) without a primary key.

    ## What it does
    Reports ordinary and partitioned tables that have no `PRIMARY KEY` constraint.
    Partitions are not reported on their own: they inherit the partitioned table's
    key, so the finding is made once, on the parent.

    ## Why is this bad?
    Without a key nothing stops two copies of a row, an UPDATE or DELETE by "id"
    may hit several rows, logical replication cannot replicate UPDATE and DELETE
    (replica identity defaults to the primary key), and tools such as pg_repack
    refuse the table.

    ## Example
    ```sql
    CREATE TABLE agent.audit_log (at timestamptz NOT NULL, what text NOT NULL);
    ```

    ## Use instead
    ```sql
    CREATE TABLE agent.audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL, what text NOT NULL
    );
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-PRIMARY-KEYS
    - https://www.postgresql.org/docs/current/logical-replication-publication.html
    """

    code = "ADV105"
    name = "table-without-primary-key"
    severity = "warning"
    group = "generic"
    query = f"""
        SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name
        FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY(%(schemas)s) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND {not_extension_member("c")}
          AND NOT EXISTS (SELECT FROM pg_constraint AS con
                          WHERE con.conrelid = c.oid AND con.contype = 'p')
        ORDER BY 1
    """

    def findings(self, rows: Sequence[Row], context: VerifyContext) -> Iterator[Finding]:
        for row in rows:
            yield self.finding(
                f"{row['table_name']} has no primary key: duplicate rows are possible and "
                "logical replication cannot replicate its updates and deletes.",
                f"ALTER TABLE {row['table_name']} ADD PRIMARY KEY USING INDEX <a unique index>",
                object=row["table_name"],
            )
