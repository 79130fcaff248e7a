"""ADA114 generic-plan-not-served."""

from __future__ import annotations

from agentddl.checks.audit.generic import GenericPlanRule
from agentddl.checks.audit.judge import plan_errors
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import PlanSummary
from agentddl.checks.core.findings import Finding


class GenericPlanNotServed(GenericPlanRule):
    """PostgreSQL 16+: the generic plan of a prepared statement reads a large table unindexed.

    ## What it does
    Reports a path whose custom plan passes while its generic plan, the one a prepared
    statement may switch to, has a plan error. The generic plan is read with
    `EXPLAIN (GENERIC_PLAN)` (new in PostgreSQL 16; earlier servers are not judged) for
    every path with parameters; a plan error is a sequential scan or a sort of a large
    table, or an unselective or full index scan (ADA101, ADA102, ADA108, ADA109).

    ## Why is this bad?
    Drivers prepare a statement after a few executions (psycopg: 5), and with
    `plan_cache_mode = auto` the server then may switch to one generic plan for any
    parameter values, once it is not costlier than the custom plans so far. A generic
    plan cannot use a partial index whose predicate a parameter decides, nor prune
    partitions by a parameter at planning time: the path is fast in tests and in its
    first executions, then silently slow.

    ## Example
    ```sql
    -- name: due_runs(status)
    SELECT r.run_id FROM agent.runs AS r
    WHERE r.status = :status AND r.wake_at <= now() ORDER BY r.priority DESC, r.wake_at LIMIT 10;
    ```
    The custom plan for `status = 'queued'` uses the partial `runs_claim_idx`; the
    generic plan cannot:
    ```
    Limit
      ->  Sort
            Sort Key: priority DESC, wake_at
            ->  Seq Scan on runs
                  Filter: ((wake_at <= now()) AND (status = $1))
    ```

    ## Use instead
    Write the value the partial index needs into the query (`WHERE r.status = 'queued'`),
    give the generic plan an index it can use (no predicate a parameter decides), or keep
    custom plans for this statement:
    ```sql
    SET plan_cache_mode = force_custom_plan;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-prepare.html#SQL-PREPARE-NOTES
    - https://www.postgresql.org/docs/current/runtime-config-query.html#GUC-PLAN-CACHE-MODE
    - https://www.postgresql.org/docs/current/sql-explain.html
    """

    code = "ADA114"
    name = "generic-plan-not-served"
    severity = "warning"

    def check(self, path: AuditPath, plan: PlanSummary, judged: list[Finding]) -> Finding | None:
        """When the generic plan reads a large table without a usable index."""
        worse = [f for f in judged if f.code in plan_errors()]
        if not worse:
            return None
        return self.finding(
            f"{path.name}'s generic plan (prepared statements may switch to it) is "
            f"{plan.main_node(path.table)}: {worse[0].message}",
            "keep plan_cache_mode = force_custom_plan for this statement, or an index the "
            "generic plan can use (no predicate a parameter decides)",
            object=path.name,
        )
