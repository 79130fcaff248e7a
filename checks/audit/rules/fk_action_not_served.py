"""ADA115 fk-action-not-served."""

from __future__ import annotations

from agentddl.checks.audit.fkactions import FiredAction, FkActionRule
from agentddl.checks.audit.judge import measured, plan_errors
from agentddl.checks.core.findings import Finding
from agentddl.generator.model.blocks import quote


class FkActionNotServed(FkActionRule):
    """A workload DELETE or key UPDATE fires a foreign key whose lookup reads a large table unindexed.

    ## What it does
    For every DELETE, and every UPDATE that changes a referenced key, in the audited
    workload, finds the foreign keys that point at the rows it changes and plans the
    lookup PostgreSQL makes for each of them: the referencing table searched by the
    key's columns, once per changed parent row. Reports the statement when a lookup
    reads a large referencing table (10,000 rows or more) by sequential scan or
    through an index that does not lead with the key's columns, with the lookup's plan
    and, where it ran, its measured rows and time. The action does not matter: `ON
    DELETE CASCADE`, `SET NULL`, `SET DEFAULT`, `NO ACTION` and `RESTRICT` all find
    the referencing rows first.

    ## Why is this bad?
    The lookup runs inside the statement, per parent row, while the parent row is
    locked: a DELETE that plans as a fast lookup by key spends seconds scanning the
    child (an `ON DELETE SET NULL` on a million-row table read whole for each deleted
    parent), and its EXPLAIN shows none of it: only "Trigger for constraint ..." time
    under EXPLAIN ANALYZE.

    ## Example
    ```sql
    CREATE TABLE jobs (
        id bigint PRIMARY KEY,
        worker_id bigint REFERENCES workers (id) ON DELETE SET NULL
    );
    -- name: forget_worker
    DELETE FROM workers WHERE id = :id;
    ```
    The lookup `SELECT 1 FROM jobs WHERE worker_id = $1` is
    ```
    Seq Scan on jobs  (rows=1,000,000)
      Filter: (worker_id = 42)
    ```

    ## Use instead
    Index the referencing columns (this is also what verify's `fk-without-index`
    asks for):
    ```sql
    CREATE INDEX CONCURRENTLY jobs_worker_id_idx ON jobs (worker_id);
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-constraints.html#DDL-CONSTRAINTS-FK
    - https://www.postgresql.org/docs/current/sql-explain.html
    """

    code = "ADA115"
    name = "fk-action-not-served"
    severity = "error"

    def judge_action(self, fired: FiredAction) -> Finding | None:
        """When the lookup has a plan error (a large child read without an index)."""
        path, fk, action, lookup = fired.firing.path, fired.fk, fired.action, fired.lookup
        schema = fired.catalog.schema
        if not any(f.code in plan_errors() for f in lookup.findings):
            return None
        assert lookup.plan is not None
        scans = [s for s in lookup.plan.scans if s.table == fk.table] or list(lookup.plan.scans)
        how = lookup.plan.main_node(fk.table)
        size = sum(s.size for s in scans)
        cost = measured(scans[0]) if scans else ""
        verb = "deletes from" if action.startswith("ON DELETE") else "changes the key of"
        columns = ", ".join(fk.columns)
        return self.finding(
            f"{path.name} {verb} {schema}.{fk.parent}, which fires {fk.name} ({action}): for each row "
            f"PostgreSQL finds the {schema}.{fk.table} rows by ({columns}), a {how} of ~{size:,.0f} "
            f"rows{cost}.",
            f"CREATE INDEX CONCURRENTLY ON {quote(schema)}.{quote(fk.table)} ({columns})",
            object=path.name,
        )
