"""ADA118 over-time-budget."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.core.findings import Finding


class OverTimeBudget(PlanRule):
    """An access path's measured execution took longer than its time budget.

    ## What it does
    With `--max-path-ms N`, or a `-- budget: 50ms` line (`1.5s` too) in a query file's
    block, which overrides it for that query, compares the execution time EXPLAIN
    ANALYZE measured for the path with its budget, and reports the path when it took
    longer. Only what the audit already runs is timed: every path on a scratch
    database (writes in a transaction rolled back), reads in place (`--dsn`), and a
    write in place by its read part (the SELECT that finds its rows; with
    `--analyze-writes` the write itself, rolled back). A path with a budget that was
    only planned (a `-- budget:` line under `--no-analyze`, a statement past
    `statement_timeout`) gets an info saying it was not timed: a cost is no time. An
    `INSERT ... VALUES` in place is not planned at all (it reads nothing but its
    checks), so it is not timed either; `--max-path-ms` with `--no-analyze` is refused.

    ## Why is this bad?
    A plan can reach every table through an index and still be too slow for the
    path's caller: a claim that must answer in a few milliseconds, a page of a
    dashboard. A budget written beside the query turns that expectation into a check
    that fails in CI when the data, the plan or the query drifts.

    ## Example
    ```sql
    -- name: all_jobs
    -- budget: 50ms
    SELECT * FROM jobs WHERE id > 0 ORDER BY id;
    ```
    ```
    Index Scan using jobs_pkey on jobs  (actual time=0.02..412.66 rows=300000 loops=1)
    Execution Time: 430.18 ms
    ```

    ## Use instead
    Make the path do less (a `LIMIT`, a narrower predicate, an index that serves it;
    the plan and the other findings say where the time goes), or give it the budget
    it really has:
    ```sql
    -- budget: 500ms
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-explain.html
    - https://www.postgresql.org/docs/current/using-explain.html#USING-EXPLAIN-ANALYZE
    """

    code = "ADA118"
    name = "over-time-budget"
    severity = "error"
    order = 11

    def check(self, seen: PlanFacts) -> list[Finding]:
        path, taken = seen.path, seen.plan.actual_ms
        budget = path.budget_ms if path.budget_ms is not None else seen.limits.max_path_ms
        if budget is None:
            return []
        given = "its -- budget: line" if path.budget_ms is not None else "--max-path-ms"
        if taken is None:
            return [
                self.finding(
                    f"{path.name} has a budget of {budget:,.6g} ms ({given}) but was only planned, not "
                    "run: its time is not judged.",
                    "audit it where it can run (a scratch database, or --analyze-writes for a write)",
                    severity="info",
                    object=path.name,
                )
            ]
        if taken <= budget:
            return []
        part = " (its read part: the write itself was not run)" if path.written is not None else ""
        return [
            self.finding(
                f"{path.name} took {taken:,.1f} ms{part}, over its budget of {budget:,.6g} ms ({given}): "
                f"measured {taken / budget:,.1f}x the budget.",
                "make the path read less (see its plan and other findings), or raise its budget",
                object=path.name,
            )
        ]
