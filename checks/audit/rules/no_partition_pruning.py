"""ADA103 no-partition-pruning."""

from __future__ import annotations

import re

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.core.findings import Finding


class NoPartitionPruning(PlanRule):
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
    order = 4

    def check(self, seen: PlanFacts) -> list[Finding]:
        """A path that compares a partition key must not read every partition. Judged on
        executed plans only: partitions pruned at run time (a key from a join or CTE) show
        as never executed under ANALYZE, while a plain plan lists them all."""
        findings: list[Finding] = []
        path, plan, catalog = seen.path, seen.plan, seen.catalog
        if plan.actual_ms is None:
            return findings
        for table, total in catalog.partitions.items():
            keys = catalog.partition_key.get(table, ())
            if total < 2 or not any(compares(path.sql, k) for k in keys):
                continue
            read = {
                s.relation
                for s in plan.scans
                if s.table == table and s.executed and s.relation not in ("", table)
            }
            if len(read) >= total:
                findings.append(
                    self.finding(
                        f"{path.name} filters by {', '.join(keys)} but reads all {total} partitions of "
                        f"{catalog.schema}.{table}: the key's value could not pick the partitions.",
                        f"compare {', '.join(keys)} with a value known at planning or execution start",
                        object=path.name,
                    )
                )
        return findings


# between a column and its comparison: closing parentheses of a function around it
# (date_trunc('day', x) =) and casts (x::date >=): both defeat pruning, and are comparisons
_WRAPPED = r"(?:\s*\)|\s*::\s*\w+(?:\s+\w+)*)*"


def compares(statement: str, column: str) -> bool:
    """The statement compares `column` (not merely selects it), bare or wrapped in a cast
    or function call."""
    name = re.escape(column)
    return (
        re.search(
            rf"\b{name}\b{_WRAPPED}\s*(?:=|<|>|\bIN\b|\bBETWEEN\b)|(?:=|<|>)\s*(?:\w+\.)?{name}\b",
            statement,
            re.IGNORECASE,
        )
        is not None
    )
