"""ADA104 declared-index-not-used."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.audit.plan import Catalog, PlanSummary
from agentddl.checks.core.findings import Finding


class DeclaredIndexNotUsed(PlanRule):
    """The plan serves a path with another index than the one the model declares for it.

    ## What it does
    Reports (as info) an access path of the model, or a user's query with an
    `-- index:` line, whose plan on a large table (10,000 rows or more) uses neither the
    declared index nor an index whose key starts with the declared key. Inserts into the
    table count as using a unique declared index (it is checked on every insert).

    ## Why is this bad?
    It is not, when the plan passes the other rules: the planner found an equally good
    way. It is worth a look because the model and the database disagree about why the
    index exists: the query may have drifted from the index (a new predicate, another
    order), or the declared index may serve nothing and only cost writes.

    ## Example
    ```sql
    -- name: children(tenant_id, parent_run_id)
    -- index: runs_parent_idx
    SELECT r.run_id FROM agent.runs AS r
    WHERE r.tenant_id = :tenant_id AND r.parent_run_id = :parent_run_id;
    ```
    is planned as
    ```
    Index Scan using runs_pkey on runs
      Index Cond: (tenant_id = '0b6e...'::uuid)
      Filter: (parent_run_id = '9c2b...'::uuid)
    ```

    ## Use instead
    Keep the query and its declared index in step: change the query back to the
    declared index's leading columns, or declare (and create) the index the query needs
    and drop the one nothing uses.

    ## References
    - https://www.postgresql.org/docs/current/indexes-multicolumn.html
    - https://www.postgresql.org/docs/current/using-explain.html
    """

    code = "ADA104"
    name = "declared-index-not-used"
    severity = "info"
    order = 9

    def check(self, seen: PlanFacts) -> list[Finding]:
        index, plan, catalog = seen.path.declared, seen.plan, seen.catalog
        if index is None or index not in catalog.index_table:
            return []  # no index declared, or a missing one (ADA105)
        small = seen.catalog.rows.get(catalog.index_table[index], 0.0) < seen.limits.large_rows
        if serves(index, plan, catalog) or small:
            return []  # served, or a small table the planner rightly reads whole
        used = ", ".join(sorted(plan.indexes)) or "no index"
        return [
            self.finding(
                f"{seen.path.name} is planned with {used}, not its declared {index}.",
                "fine when the plan passes; otherwise check the query still matches the index",
                object=seen.path.name,
            )
        ]


def serves(index: str, plan: PlanSummary, catalog: Catalog) -> bool:
    """The plan uses `index`, an index whose key starts with its key, or inserts into
    its table (a unique index is then checked on every insert)."""
    key = catalog.index_columns.get(index, ())
    for used in plan.indexes:
        if used == index or (
            key
            and catalog.index_table.get(used) == catalog.index_table.get(index)
            and catalog.index_columns.get(used, ())[: len(key)] == key
        ):
            return True
    return index in catalog.unique and catalog.index_table.get(index) in plan.inserts
