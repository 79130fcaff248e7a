"""ADA121 cost-regression."""

from __future__ import annotations

from typing import Any

from agentddl.checks.audit.baseline import BaselineRule
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.core.findings import Finding


class CostRegression(BaselineRule):
    """Against the baseline, an access path's estimated cost grew beyond the threshold.

    ## What it does
    With `--baseline FILE`, reports a path whose plan's estimated total cost is more
    than `--cost-growth` times (default 2) its baseline cost. Only where the path now
    reaches a large relation (10,000 rows or more), as for ADA120.

    ## Why is this bad?
    The plan still uses its indexes, but does much more work: a wider scan, a sort the
    index used to avoid, a join that became a nested loop over many rows. Estimated cost
    is deterministic for the same schema, volume and statistics, so a jump of this size
    is a change in the plan, not noise.

    ## Example
    ```
    baseline: events_since  Index Scan using events_since_idx on events   cost 42.10
    now:      events_since  Bitmap Heap Scan on events                   cost 1893.55
    ```

    ## Use instead
    Look at the plan (`--format json` gives each path's node, cost and indexes), and fix
    the query or the index. When the change is intended, update the baseline:
    ```
    agentddl audit --baseline audit-baseline.json --update-baseline
    ```

    ## References
    - https://www.postgresql.org/docs/current/using-explain.html
    - https://www.postgresql.org/docs/current/planner-stats.html
    """

    code = "ADA121"
    name = "cost-regression"
    severity = "error"

    def check(self, result: PathResult, before: dict[str, Any], growth: float) -> Finding | None:
        assert result.plan is not None
        cost = float(before.get("cost", 0.0))
        if not (cost > 0 and result.plan.cost > cost * growth):
            return None
        return self.finding(
            f"{result.path.name}'s estimated cost grew from {cost:,.2f} to {result.plan.cost:,.2f} "
            f"(more than {growth:g}x the baseline).",
            "look at the plan (--format json); update the baseline if the change is intended",
            object=result.path.name,
        )
