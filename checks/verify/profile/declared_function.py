"""ADV129 declared-function."""

from __future__ import annotations

from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.verify.declared import DeclaredObjectsRule, Mismatch


class DeclaredFunction(DeclaredObjectsRule):
    """A function the profile declares is missing or defined otherwise.

    ## What it does
    Compares every function of the reference installation (the profile's schema.sql
    in a scratch database on the same server) with the live function of the same
    name and arguments: result type, language, `SECURITY DEFINER`, volatility,
    `SET` options and body. Bodies are compared as PostgreSQL stores them (PL/pgSQL
    is not deparsed), with the schema's own name replaced by a placeholder so a
    profile's schema name doesn't matter; a body that still names another schema
    (left behind by `ALTER SCHEMA ... RENAME`) is reported.

    ## Why is this bad?
    The generated triggers call these functions: an append-only guard replaced by a
    body that returns NEW keeps its trigger but lets history be rewritten; a run
    lifecycle check that no longer raises lets a cancelled run resume; partition
    maintenance that names a schema that no longer exists creates nothing.

    ## Example
    ```sql
    CREATE OR REPLACE FUNCTION agent.forbid_update() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;  -- "temporarily", for a backfill
    ```

    ## Use instead
    Re-create it from the profile's schema.sql (`agentddl generate`), and do one-off
    data fixes as the owner with the trigger disabled inside a single transaction.

    ## References
    - https://www.postgresql.org/docs/current/sql-createfunction.html
    """

    code = "ADV129"
    name = "declared-function"
    severity = "error"
    kind = "functions"
    noun = "function"

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        return f"re-create {schema}.{mismatch.name} from the profile's schema.sql (agentddl generate)"
