"""ADA120 lost-index."""

from __future__ import annotations

from typing import Any

from agentddl.checks.audit.baseline import BaselineRule
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.core.findings import Finding


class LostIndex(BaselineRule):
    """Against the baseline, an access path no longer uses an index its plan used.

    ## What it does
    With `--baseline FILE` (written on the first run, compared on later ones), reports a
    path whose plan no longer uses an index its baseline plan used. Only where the path
    now reaches a large relation (10,000 rows or more): on small relations the planner
    rightly flips between an index and a read of the whole relation from one seed to the
    next. Partition indexes count as their partitioned parent, so new partitions are no
    change.

    ## Why is this bad?
    A plan that loses its index in CI is a regression a migration or a query change
    caused: a dropped or renamed index, a predicate the index no longer matches, a type
    change that makes a comparison unindexable. Caught in the pull request, it costs a
    review comment; caught in production, an incident.

    ## Example
    The baseline stores
    ```json
    "claim_run": {"node": "Index Scan using runs_claim_idx on runs",
                  "indexes": ["runs_claim_idx"], "cost": 34.66}
    ```
    and after a migration the path is planned as
    ```
    Limit
      ->  Sort
            ->  Seq Scan on runs
    ```

    ## Use instead
    Restore the index (or the query shape that used it). When the change is intended,
    update the baseline:
    ```
    agentddl audit --baseline audit-baseline.json --update-baseline
    ```

    ## References
    - https://www.postgresql.org/docs/current/using-explain.html
    """

    code = "ADA120"
    name = "lost-index"
    severity = "error"

    def check(self, result: PathResult, before: dict[str, Any], growth: float) -> Finding | None:
        assert result.plan is not None
        lost = [i for i in before.get("indexes", ()) if i not in result.plan.indexes]
        if not lost:
            return None
        return self.finding(
            f"{result.path.name} no longer uses {', '.join(lost)} (baseline: {before['node']}; "
            f"now: {result.plan.main_node(result.path.table)}).",
            "restore the index, or update the baseline if the change is intended",
            object=result.path.name,
        )
