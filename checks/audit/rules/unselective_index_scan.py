"""ADA108 unselective-index-scan."""

from __future__ import annotations

from agentddl.checks.audit.rules import AuditRule


class UnselectiveIndexScan(AuditRule):
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
