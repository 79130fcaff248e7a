"""ADA109 full-index-scan."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule, first_per_table, measured
from agentddl.checks.core.findings import Finding


class FullIndexScan(PlanRule):
    """Before PostgreSQL 18: a B-tree index read whole because its leading column is free.

    ## What it does
    Reports a B-tree index scan on a large index (10,000 entries or more) whose
    condition does not constrain the index's leading column, on PostgreSQL 17 and
    earlier. The planner chose the index because it is smaller than the table, but
    without the leading column every entry is checked against the condition. Where the
    scan ran (EXPLAIN ANALYZE), it is judged by what it read, not by its shape: a scan
    that touched fewer than 8 pages or a tenth of the index (a `LIMIT` met at the first
    entries: a 0.02 ms lookup) is not reported.

    ## Why is this bad?
    The node reads "Index Scan ... Index Cond: (run_id = ...)", which looks like a
    lookup by key; it is a read of the entire index, whose cost grows with the table.
    On PostgreSQL 18 the same plan is a skip scan (ADA106), cheaper but still growing
    with the leading column's distinct values.

    ## Example
    ```sql
    -- name: run_without_tenant(run_id)
    SELECT r.status FROM agent.runs AS r WHERE r.run_id = :run_id;
    ```
    is planned on PostgreSQL 16 as
    ```
    Index Scan using runs_pkey on runs
      Index Cond: (run_id = '9c2b...'::uuid)
    ```
    where runs_pkey is `(tenant_id, run_id)`.

    ## Use instead
    Constrain the leading column (the tenant, for a tenant-scoped key), or lead an
    index with the path's equality columns:
    ```sql
    SELECT r.status FROM agent.runs AS r WHERE r.tenant_id = :tenant_id AND r.run_id = :run_id;
    ```

    ## References
    - https://www.postgresql.org/docs/current/indexes-multicolumn.html
    """

    code = "ADA109"
    name = "full-index-scan"
    severity = "error"
    order = 6
    plan_error = True

    def check(self, seen: PlanFacts) -> list[Finding]:
        name, schema = seen.path.name, seen.catalog.schema
        return first_per_table(
            self.finding(
                f"{name} reads all of {scan.index} on {schema}.{scan.table}{measured(scan)}: its "
                "condition leaves the leading column free, so before PostgreSQL 18 every entry is "
                "checked.",
                "lead an index with the path's equality columns",
                object=name,
            )
            for scan in seen.large_index_scans()
            if scan.full_index
        )
