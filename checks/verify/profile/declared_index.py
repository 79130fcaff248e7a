"""ADV121 declared-index."""

from __future__ import annotations

from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.verify.declared import DeclaredObjectsRule, Mismatch


class DeclaredIndex(DeclaredObjectsRule):
    """An index the profile declares is missing, defined otherwise, or invalid.

    ## What it does
    Installs the profile's schema.sql into a scratch database on the same server
    (the reference), then compares every index there with the live index of the same
    name: table, method, uniqueness (and `NULLS NOT DISTINCT`), key columns and
    expressions, INCLUDE columns, operator classes, collations, sort order and
    predicate, each as PostgreSQL itself defines them, so a definition written
    differently but equal compares equal. A live index that is invalid is reported
    too. Names are matched in the verified schema, whatever it is called.

    ## Why is this bad?
    Every declared index serves an access path (a claim, a read, a foreign key's
    cascade) or enforces an invariant (at most one active attempt per run). Without
    it that query scans, or the invariant is gone: two workers can hold one run.

    ## Example
    ```sql
    DROP INDEX agent.attempts_one_active_key;  -- a hotfix nobody reverted
    ```

    ## Use instead
    Re-create it as declared (the fix line prints the definition), concurrently:
    ```sql
    CREATE UNIQUE INDEX CONCURRENTLY attempts_one_active_key
        ON agent.attempts (tenant_id, run_id) WHERE status = 'active';
    ```

    ## References
    - PLAN.md of the generated schema (which access path each index serves)
    - https://www.postgresql.org/docs/current/catalog-pg-index.html
    """

    code = "ADV121"
    name = "declared-index"
    severity = "error"
    kind = "indexes"
    noun = "index"

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        ddl = declared.ddl["indexes"].get(mismatch.name, "")
        concurrent = ddl.replace(" INDEX ", " INDEX CONCURRENTLY ", 1)
        if mismatch.problem == "missing":
            return concurrent if schema == declared.schema else f"{concurrent} (in schema {schema})"
        return f"build the declared one concurrently under a new name and swap: {concurrent}"
