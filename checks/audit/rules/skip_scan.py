"""ADA106 skip-scan."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule, first_per_table
from agentddl.checks.core.findings import Finding


class SkipScan(PlanRule):
    """PostgreSQL 18 reads a large index as a skip scan: its leading column is not constrained.

    ## What it does
    Reports a B-tree index scan on a large index (10,000 entries or more) whose
    condition leaves the index's leading column free, on PostgreSQL 18 and later, where
    the executor reads such a scan as a skip scan. The plan node is shown as
    `Index Scan using <index> (skip scan) on <table>`, and the finding gives EXPLAIN
    ANALYZE's `Index Searches` (one descent per distinct leading value). A scan that ran
    and touched fewer than 8 pages or a tenth of the index is not reported.

    ## Why is this bad?
    A skip scan is far better than reading the whole index, and it is fine while the
    leading column has few distinct values. Its cost grows with that number: a path that
    ignores `tenant_id` in a tenant-leading index does one index search per tenant, and
    gets slower as tenants are added. It also means the path does not say what it is
    about: a query without its tenant usually has a missing predicate.

    ## Example
    ```sql
    -- name: run_without_tenant(run_id)
    SELECT r.status FROM agent.runs AS r WHERE r.run_id = :run_id;
    ```
    is planned on PostgreSQL 18 as
    ```
    Index Scan using runs_pkey on runs
      Index Cond: (run_id = '9c2b...'::uuid)
      Index Searches: 201
    ```

    ## Use instead
    Give the path its leading column, or an index that leads with its equality columns:
    ```sql
    SELECT r.status FROM agent.runs AS r WHERE r.tenant_id = :tenant_id AND r.run_id = :run_id;
    ```

    ## References
    - https://www.postgresql.org/docs/18/indexes-multicolumn.html
    - https://www.postgresql.org/docs/18/release-18.html
    """

    code = "ADA106"
    name = "skip-scan"
    severity = "warning"
    order = 5

    def check(self, seen: PlanFacts) -> list[Finding]:
        name = seen.path.name
        return first_per_table(
            self.finding(
                f"{name} uses {scan.index} as a skip scan (PostgreSQL 18): its condition leaves the "
                "leading column free, so it descends once per distinct leading value"
                + (f", {scan.searches} index searches" if scan.searches is not None else "")
                + ".",
                "lead an index with the path's equality columns",
                object=name,
            )
            for scan in seen.large_index_scans()  # a small partial skip scan is fine
            if scan.skip_scan
        )
