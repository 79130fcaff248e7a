"""ADA105 declared-index-missing."""

from __future__ import annotations

from agentddl.checks.audit.judge import PlanFacts, PlanRule
from agentddl.checks.core.findings import Finding


class DeclaredIndexMissing(PlanRule):
    """The index the model declares for an access path is not in the database.

    ## What it does
    Reports an access path (a generated query, a foreign key's lookup, or a user's query
    with an `-- index:` line) whose declared index does not exist in the audited schema,
    whatever its plan looks like.

    ## Why is this bad?
    The index was declared because this path needs it. Its absence may not show in the
    plan at the audited volume (a small table is read whole anyway, or another index
    serves the lookup for now), but the path lost the guarantee it was designed with: a
    migration dropped or renamed the index, or an `--existing` database never had it.
    A uniqueness guard or a foreign key's lookup may be gone with it.

    ## Example
    ```sql
    DROP INDEX agent.runs_claim_idx;
    -- name: claim_run()  (declared: runs_claim_idx)
    SELECT r.run_id FROM agent.runs AS r WHERE r.status = 'queued' AND r.wake_at <= now()
    ORDER BY r.priority DESC, r.wake_at LIMIT 1 FOR UPDATE SKIP LOCKED;
    ```
    is planned as
    ```
    Limit
      ->  LockRows
            ->  Sort
                  Sort Key: priority DESC, wake_at
                  ->  Seq Scan on runs
    ```

    ## Use instead
    Create the index as the schema declares it (the generated `schema.sql` and the
    Alembic revision hold its definition):
    ```sql
    CREATE INDEX CONCURRENTLY runs_claim_idx ON agent.runs (priority DESC, wake_at)
        WHERE status = 'queued';
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
    """

    code = "ADA105"
    name = "declared-index-missing"
    severity = "error"
    order = 8

    def check(self, seen: PlanFacts) -> list[Finding]:
        index, catalog = seen.path.declared, seen.catalog
        if index is None or index in catalog.index_table:
            return []
        return [
            self.finding(
                f"{seen.path.name} lost its index: {catalog.schema}.{index}, declared for it, is not "
                "in the database.",
                f"create {index} as the schema declares it",
                object=seen.path.name,
            )
        ]
