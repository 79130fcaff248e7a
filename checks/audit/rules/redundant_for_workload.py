"""ADA110 redundant-for-workload."""

from __future__ import annotations

from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.workload import Impact, WorkloadRule
from agentddl.checks.core.findings import Finding


class RedundantForWorkload(WorkloadRule):
    """Dropping the index leaves every access path's plan as good.

    ## What it does
    Reports an index every access path can do without. Each index on a large table
    (10,000 rows or more) that does not enforce uniqueness is dropped inside a
    transaction that is rolled back, and every path re-planned; the index is reported
    when no path gains an error finding and none costs more than 10% (plus one page)
    above its plan with the index. A constraint's index is
    dropped with its constraint (and the foreign keys that need it), so its lookups are
    judged too. Nothing is changed: the drop is always rolled back.

    On a database audited in place (`--dsn`) the drop happens in a scratch clone (the
    schema and a sample of rows, on another server), never on the database: indexes that
    enforce nothing are dropped one after another, the narrowest first, each kept dropped
    when every path (and every foreign key's lookup) still plans as well, so of two
    indexes that serve the same paths one is reported, never both. An index the
    database's plans use but the clone's do not is not judged. The report says where it
    was judged.

    ## Why is this bad?
    Every index is written on every insert and on every update of its columns (and it
    defeats HOT updates of those columns), takes space in memory and on disk, and slows
    VACUUM. An index the workload never needs is pure cost, often left behind by a query
    that changed, or duplicated by a wider index that serves the same paths.

    ## Example
    ```sql
    CREATE INDEX runs_parent_dup_idx ON agent.runs (tenant_id, parent_run_id)
        WHERE parent_run_id IS NOT NULL;   -- runs_parent_idx has the same definition
    ```
    Every path's plan without it:
    ```
    Index Scan using runs_parent_idx on runs   (same cost)
    ```

    ## Use instead
    Drop it without blocking writes, or add the query that needs it to the audited
    workload (`--queries`) so the audit can see it is needed:
    ```sql
    DROP INDEX CONCURRENTLY agent.runs_parent_dup_idx;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-dropindex.html
    - https://www.postgresql.org/docs/current/storage-hot.html
    """

    code = "ADA110"
    name = "redundant-for-workload"
    severity = "warning"

    def check(self, impact: Impact, catalog: Catalog) -> Finding | None:
        """When no path fails or costs more without the index."""
        if impact.lost or impact.costlier:
            return None
        index = impact.index
        return self.finding(
            f"Without {index} every access path plans as well (re-planned with the index "
            "dropped in a rolled-back transaction): it only costs writes and space.",
            f"drop {index} (DROP INDEX CONCURRENTLY), or add the path that needs it to the workload",
            object=f"{catalog.schema}.{index}",
        )

    def not_needed(self, catalog: Catalog, index: str, judged_in: str) -> Finding:
        return self.finding(
            f"Without {index} every audited path plans as well (judged in {judged_in}: the index dropped "
            "in a rolled-back transaction, every path re-planned): it only costs writes and space.",
            f"DROP INDEX CONCURRENTLY {catalog.qualified(index)}",
            object=catalog.qualified(index),
        )
