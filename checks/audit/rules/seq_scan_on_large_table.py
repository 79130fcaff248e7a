"""ADA101 seq-scan-on-large-table."""

from __future__ import annotations

from agentddl.checks.audit.rules import AuditRule


class SeqScanOnLargeTable(AuditRule):
    """An access path reads a large table by a sequential scan to find a few rows.

    ## What it does
    Reports an access path whose plan reads a large table (10,000 rows or more, or any
    of its partitions that large) by a sequential scan that keeps at most 10% of the
    rows it reads. One finding per table: the scans of all its partitions are added up.
    A scan that keeps a large share of the table is not reported: reading it whole is
    then the right plan.

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
