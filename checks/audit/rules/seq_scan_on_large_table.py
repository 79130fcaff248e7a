"""ADA101 seq-scan-on-large-table."""

from __future__ import annotations

from dataclasses import replace

from agentddl.checks.audit.judge import PlanFacts, PlanRule, measured, unindexed_search
from agentddl.checks.audit.plan import Scan
from agentddl.checks.core.findings import Finding


class SeqScanOnLargeTable(PlanRule):
    """An access path reads a large table by a sequential scan to find a few rows.

    ## What it does
    Reports an access path whose plan reads a large table (10,000 rows or more, or any
    of its partitions that large) by a sequential scan that keeps at most 10% of the
    rows it reads. One finding per table: the scans of all its partitions are added up.
    A scan that keeps a large share of the table is not reported here: reading it whole
    is then the right plan, and the path itself reads too much (ADA117).

    ## Why is this bad?
    A sequential scan reads every page of the table to return a handful of rows: its
    cost grows with the table, not with the answer. At the seeded volume the path is
    already slow; in production, where the table keeps growing, it gets slower every day,
    fills the buffer cache with pages nobody needs and, on a hot path (a claim, a lookup
    by key), multiplies by the request rate.

    ## Example
    ```sql
    -- name: run_by_trace(trace_id)
    SELECT r.run_id FROM agent.runs AS r WHERE r.trace_id = :trace_id;
    ```
    is planned as
    ```
    Seq Scan on runs  (cost=0.00..5103.00 rows=1 width=16)
      Filter: (trace_id = 'tr-00042'::text)
    ```

    ## Use instead
    An index leading with the path's equality columns (the audit suggests one, and
    proves it with hypopg where the server has it):
    ```sql
    CREATE INDEX CONCURRENTLY runs_trace_idx ON agent.runs (trace_id);
    ```
    which the path then reads as `Index Scan using runs_trace_idx on runs`.

    ## References
    - https://www.postgresql.org/docs/current/using-explain.html
    - https://www.postgresql.org/docs/current/indexes-intro.html
    """

    code = "ADA101"
    name = "seq-scan-on-large-table"
    severity = "error"
    order = 1
    plan_error = True

    def check(self, seen: PlanFacts) -> list[Finding]:
        """One finding per table read by sequential scans of its large relations (a
        table, or any of its partitions) for a small share of their rows."""
        by_table: dict[str, list[Scan]] = {}
        for scan in seen.plan.scans:
            if unindexed_search(scan, seen.catalog, seen.limits):
                by_table.setdefault(scan.table, []).append(scan)
        return [self._found(seen, table, scans) for table, scans in by_table.items()]

    def _found(self, seen: PlanFacts, table: str, scans: list[Scan]) -> Finding:
        catalog = seen.catalog
        size = sum(catalog.rows.get(s.relation, 0.0) for s in scans)
        actual = measured(_summed(scans))
        where = (
            f" ({len(scans)} of {catalog.partitions[table]} partitions)"
            if table in catalog.partitions
            else ""
        )
        return self.finding(
            f"{seen.path.name} reads {catalog.schema}.{table}{where}, {size:,.0f} rows, by sequential "
            f"scan to find ~{sum(s.rows for s in scans):,.0f}{actual}: its cost grows with the table.",
            "add an index leading with the path's equality columns (see the suggestion)",
            object=seen.path.name,
        )


def _summed(scans: list[Scan]) -> Scan:
    """One table's scans (its partitions) as one, for the measured figures."""
    first = scans[0]
    if len(scans) == 1 or any(s.read is None for s in scans):
        return first
    return replace(
        first,
        read=sum(s.read or 0.0 for s in scans),
        returned=sum(s.returned or 0.0 for s in scans),
        ms=sum(s.ms or 0.0 for s in scans),
    )
