"""ADA108 unselective-index-scan."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule, first_per_table, measured
from agentddl.checks.audit.plan import Scan
from agentddl.checks.core.findings import Finding

UNSELECTIVE_RATIO = 20  # entries read per row kept


class UnselectiveIndexScan(PlanRule):
    """An index hands over far more rows than the path keeps.

    ## What it does
    Reports an executed index or bitmap scan of a large table (10,000 rows or more)
    that hands over 10,000 index entries or more and at least 20 times as many as the
    rows it keeps. The entries handed over are read from the plan: a bitmap's index
    scans (their estimate), or under EXPLAIN ANALYZE the rows kept plus the rows removed
    by the filter. The index matched only a prefix of the path's predicate, such as the
    tenant or the status, and the rest was checked row by row.

    ## Why is this bad?
    The node's name says "Index Scan", but the work is that of a scan of the whole
    prefix: every entry of a large tenant, every queued run. It grows with the prefix,
    visits the heap for each entry, and is easy to miss because the plan looks indexed.

    ## Example
    ```sql
    -- name: events_of_kind(tenant_id, kind)
    SELECT e.seq FROM agent.events AS e WHERE e.tenant_id = :tenant_id AND e.kind = :kind;
    ```
    is planned as
    ```
    Index Scan using events_since_idx on events
      Index Cond: (tenant_id = '0b6e...'::uuid)
      Filter: (kind = 'tool_call'::text)
      Rows Removed by Filter: 48210
    ```

    ## Use instead
    Extend the index with the columns the filter checks, equality columns first:
    ```sql
    CREATE INDEX ON agent.events (tenant_id, kind);
    ```

    ## References
    - https://www.postgresql.org/docs/current/indexes-multicolumn.html
    - https://www.postgresql.org/docs/current/using-explain.html#USING-EXPLAIN-ANALYZE
    """

    code = "ADA108"
    name = "unselective-index-scan"
    severity = "error"
    order = 2
    plan_error = True

    def check(self, seen: PlanFacts) -> list[Finding]:
        return first_per_table(f for s in seen.plan.scans if (f := self._unselective(seen, s)))

    def _unselective(self, seen: PlanFacts, scan: Scan) -> Finding | None:
        """An index on a large table that hands over far more rows than the path keeps: it
        matched only a prefix (a tenant, a status) and the rest is filtered row by row."""
        catalog, limits = seen.catalog, seen.limits
        size = catalog.rows.get(scan.relation, 0.0)
        fetched = scan.fetched
        if fetched is None or not scan.executed or size < limits.large_rows:
            return None
        if fetched < limits.large_rows or fetched < UNSELECTIVE_RATIO * max(scan.rows, 1.0):
            return None
        return self.finding(
            f"{seen.path.name} reads ~{fetched:,.0f} index entries of {catalog.schema}.{scan.table} to "
            f"keep ~{scan.rows:,.0f}{measured(scan)}: the index matches only a prefix of the path's "
            "predicate.",
            "extend the index with the columns the filter checks (equality first)",
            object=seen.path.name,
        )
