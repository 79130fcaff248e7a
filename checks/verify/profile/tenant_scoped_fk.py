"""ADV124 tenant-scoped-fk."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from agentddl.checks.catalog_rules.types import Connection, Row, Rule, VerifyContext, fetch
from agentddl.checks.core.findings import Finding
from agentddl.checks.verify.declared import live_snapshot


class TenantScopedFk(Rule):
    """A tenant-owned table that doesn't reach its parent through a tenant-scoped key.

    ## What it does
    For every table the profile marks tenant-owned, reads its live foreign keys and
    requires (1) at least one validated foreign key that pairs the tenant column
    with the referenced table's tenant column, and (2) that every foreign key to
    another tenant-owned table (or to the tenants table) includes that pair. Single
    tenant profiles (no tenant column) have nothing to prove.

    ## Why is this bad?
    A key without the tenant column lets a row of tenant A point at a run of
    tenant B: a cascade deletes another tenant's rows, a join leaks them, and the
    schema is no longer distributable by tenant. "The application always sets both"
    is not an invariant.

    ## Example
    ```sql
    ALTER TABLE agent.outbox ADD FOREIGN KEY (run_id) REFERENCES agent.runs_by_id (run_id);
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.outbox ADD CONSTRAINT outbox_run_fkey FOREIGN KEY (tenant_id, run_id)
        REFERENCES agent.runs (tenant_id, run_id) NOT VALID;
    ALTER TABLE agent.outbox VALIDATE CONSTRAINT outbox_run_fkey;
    ```

    ## References
    - https://www.citusdata.com/blog/2018/02/13/using-hll-and-citus-for-multi-tenant-apps/ (co-located keys)
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    """

    code = "ADV124"
    name = "tenant-scoped-fk"
    severity = "error"
    group = "profile"
    query = """
        SELECT c.relname AS table_name, con.conname AS name, r.relname AS ref_table,
               con.convalidated AS valid,
               ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k (n, o)
                     JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.n
                     ORDER BY k.o) AS columns,
               ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k (n, o)
                     JOIN pg_attribute AS a ON a.attrelid = con.confrelid AND a.attnum = k.n
                     ORDER BY k.o) AS ref_columns
        FROM pg_constraint AS con
        JOIN pg_class AS c ON c.oid = con.conrelid
        JOIN pg_class AS r ON r.oid = con.confrelid
        WHERE con.contype = 'f' AND con.conparentid = 0
          AND c.relnamespace IN (SELECT oid FROM pg_namespace WHERE nspname = ANY(%(schemas)s))
          AND r.relnamespace = c.relnamespace
        ORDER BY 1, 2
    """

    def applies(self, context: VerifyContext) -> bool:
        return context.model is not None and context.model.profile.tenancy.column is not None

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        # a missing table is declared-column's finding, not this rule's
        live = set(live_snapshot(connection, context).objects.get("tables", {}))
        yield from self._findings(fetch(connection, self.query, context.params), context, live)

    def _findings(self, rows: Sequence[Row], context: VerifyContext, live: set[str]) -> Iterator[Finding]:
        assert context.model is not None
        tenant = context.model.profile.tenancy.column
        schema = context.schemas[0]
        owned = {t.name for t in context.model.tables if t.tenant_owned} & live
        parents = {t.name for t in context.model.tables if tenant in t.primary_key}
        for table in sorted(owned):
            keys = [row for row in rows if row["table_name"] == table and row["ref_table"] in parents]
            scoped = [row for row in keys if _pairs_tenant(row, tenant)]
            if not any(row["valid"] for row in scoped):
                yield self.finding(
                    f"{schema}.{table} reaches no parent through a validated foreign key on {tenant}: "
                    "its rows may point at another tenant's rows.",
                    f"add a foreign key ({tenant}, <parent key>) to its parent, NOT VALID then VALIDATE",
                    object=f"{schema}.{table}",
                )
            for row in keys:
                if row not in scoped:
                    yield self.finding(
                        f"{row['name']} ({', '.join(row['columns'])}) -> {row['ref_table']} leaves out "
                        f"{tenant}: a row may point at another tenant's {row['ref_table']} row.",
                        f"include {tenant} in both sides of {row['name']}",
                        object=f"{schema}.{table}.{row['name']}",
                    )


def _pairs_tenant(row: Row, tenant: str | None) -> bool:
    return any(a == tenant and b == tenant for a, b in zip(row["columns"], row["ref_columns"], strict=True))
