"""ADA103 no-partition-pruning."""

from __future__ import annotations

from agentddl.checks.audit.rules import AuditRule


class NoPartitionPruning(AuditRule):
    """A path that compares a partition key still reads every partition.

    ## What it does
    Reports an access path whose statement compares a partitioned table's partition key
    (`=`, `<`, `>`, `IN`, `BETWEEN`, bare or inside a cast or function call) while its
    executed plan (EXPLAIN ANALYZE) reads every partition of the table. Partitions pruned
    at run time (a key from a join or a CTE) show as never executed and do not count, so
    only plans that really read them all are reported.

    ## Why is this bad?
    Partitioning a table by time is meant to make a query for a recent window touch the
    recent partitions only. A comparison the planner cannot match against the partition
    bounds (`date_trunc('day', created_at) = ...`, `created_at::date >= ...`, a key of a
    different type) reads every partition: the query's cost grows with the whole retention
    window, and retention (detaching old partitions) no longer keeps it small.

    ## Example
    ```sql
    -- name: tenant_events_since_yesterday(tenant_id)
    SELECT e.seq FROM agent.events AS e
    WHERE e.tenant_id = :tenant_id AND e.run_created_at::date >= current_date - 1;
    ```
    is planned as
    ```
    Append
      ->  Index Scan using events_p20261101_tenant_idx on events_p20261101
      ->  Index Scan using events_p20261102_tenant_idx on events_p20261102
      ...   (all 30 partitions)
    ```

    ## Use instead
    Compare the key itself with a value known when the plan starts (a parameter, or an
    expression of stable functions):
    ```sql
    WHERE e.tenant_id = :tenant_id AND e.run_created_at >= current_date - 1
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITION-PRUNING
    """

    code = "ADA103"
    name = "no-partition-pruning"
    severity = "error"
