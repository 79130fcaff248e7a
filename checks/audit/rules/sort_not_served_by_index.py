"""ADA102 sort-not-served-by-index."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.core.findings import Finding


class SortNotServedByIndex(PlanRule):
    """An access path sorts many rows of a large table that an index could return in order.

    ## What it does
    Reports a `Sort` node that sorts 1,000 rows or more read from a large table (10,000
    rows or more). An `Incremental Sort` is not reported: an index already delivers the
    leading sort keys and only ties are sorted.

    ## Why is this bad?
    To return the first rows in `ORDER BY` order the executor must first read and sort
    every matching row: a `LIMIT 50` page of a tenant's history reads the whole history.
    The sort grows with the data, spills to disk past `work_mem`, and is repeated on
    every call. An index in the query's order returns the rows presorted, and a `LIMIT`
    stops the scan after the rows it needs.

    ## Example
    ```sql
    -- name: recent_failures(kind)
    SELECT r.run_id FROM agent.runs AS r
    WHERE r.kind = :kind AND r.status = 'failed'
    ORDER BY r.finished_at DESC LIMIT 50;
    ```
    is planned as
    ```
    Limit
      ->  Sort  (rows=3019)
            Sort Key: finished_at DESC
            ->  Seq Scan on runs
    ```

    ## Use instead
    Index the equality columns, then the `ORDER BY` columns with their direction (a
    partial index when the query always asks for one status):
    ```sql
    CREATE INDEX CONCURRENTLY runs_failed_idx ON agent.runs (kind, finished_at DESC)
        WHERE status = 'failed';
    ```

    ## References
    - https://www.postgresql.org/docs/current/indexes-ordering.html
    - https://www.postgresql.org/docs/current/indexes-partial.html
    """

    code = "ADA102"
    name = "sort-not-served-by-index"
    severity = "error"
    order = 3
    plan_error = True

    def check(self, seen: PlanFacts) -> list[Finding]:
        limits = seen.limits
        large = {t for t, rows in seen.catalog.rows.items() if rows >= limits.large_rows}
        return [
            self.finding(
                f"{seen.path.name} sorts ~{sort.input_rows:,.0f} rows of "
                f"{', '.join(sorted(sort.tables & large))} by {', '.join(sort.keys)}: an index in "
                "that order would return them presorted.",
                "index the equality columns, then the ORDER BY columns (with their DESC)",
                object=seen.path.name,
            )
            for sort in seen.plan.sorts
            if not sort.presorted and sort.input_rows >= limits.sort_rows and sort.tables & large
        ]
