"""ADA116 slow-trigger."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.core.findings import Finding

SLOW_TRIGGER_MS = 10.0
SLOW_TRIGGER_SHARE = 0.5


class SlowTrigger(PlanRule):
    """Under EXPLAIN ANALYZE of a write, a trigger takes most of the statement's time.

    ## What it does
    When writes are analyzed (`--analyze-writes`, in a transaction that is rolled
    back; or on a scratch database), reads the time EXPLAIN ANALYZE reports for each
    trigger the statement fired, foreign keys' action triggers included, and reports a
    trigger that took at least 10 ms and at least half of the statement's execution
    time.

    ## Why is this bad?
    A trigger's work does not appear in the statement's plan: the plan of a DELETE by
    primary key looks like a lookup of one row while its triggers scan, update or
    delete elsewhere. The statement is as slow as its triggers, and it holds its row
    locks while they run.

    ## Example
    ```
    Delete on workers  (actual time=0.05..0.05 rows=0 loops=1)
      ->  Index Scan using workers_pkey on workers  (actual time=0.02..0.02 rows=1 loops=1)
    Trigger for constraint jobs_worker_id_fkey on workers: time=16031.2 calls=1
    Execution Time: 16031.4 ms
    ```

    ## Use instead
    For a foreign key's action, index the referencing columns; for a trigger of your
    own, make what it does a lookup by key (or move the work out of the statement,
    e.g. into a queue a worker drains):
    ```sql
    CREATE INDEX CONCURRENTLY jobs_worker_id_idx ON jobs (worker_id);
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-explain.html
    - https://www.postgresql.org/docs/current/trigger-definition.html
    """

    code = "ADA116"
    name = "slow-trigger"
    severity = "warning"
    order = 7

    def check(self, seen: PlanFacts) -> list[Finding]:
        """A trigger (a foreign key's action too) that took most of a write's time."""
        total = seen.plan.actual_ms or 0.0
        return [
            self.finding(
                f"{seen.path.name} spends {t.ms:,.1f} ms of {total:,.1f} ms in "
                + (f"the action of foreign key {t.constraint}" if t.constraint else f"trigger {t.name}")
                + f" on {t.relation} ({t.calls:,} call{'s' if t.calls != 1 else ''}): "
                "the plan does not show that work.",
                "index what the trigger looks up (for a foreign key: the referencing columns)",
                object=seen.path.name,
            )
            for t in seen.plan.triggers
            if t.ms >= SLOW_TRIGGER_MS and t.ms >= SLOW_TRIGGER_SHARE * total
        ]
