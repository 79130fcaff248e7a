"""ADV128 declared-trigger."""

from __future__ import annotations

from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.verify.declared import DeclaredObjectsRule, Mismatch


class DeclaredTrigger(DeclaredObjectsRule):
    """A trigger the profile declares is missing, defined otherwise, or disabled.

    ## What it does
    Compares every trigger of the reference installation (the profile's schema.sql
    in a scratch database on the same server) with the live trigger of the same
    name: its definition as `pg_get_triggerdef` prints it (timing, events, columns,
    WHEN condition, function) and whether it is enabled.

    ## Why is this bad?
    The generated triggers are invariants the table model can't state: events are
    append-only (UPDATE refused for every role), run status follows the lifecycle,
    a checkpoint's parent exists. A disabled or missing trigger lets history be
    rewritten or a cancelled run be resumed.

    ## Example
    ```sql
    ALTER TABLE agent.events DISABLE TRIGGER events_append_only;
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.events ENABLE TRIGGER events_append_only;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-createtrigger.html
    """

    code = "ADV128"
    name = "declared-trigger"
    severity = "error"
    kind = "triggers"
    noun = "trigger"

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        ddl = declared.ddl["triggers"].get(mismatch.name, "")
        if "enabled" in mismatch.problem and "definition" not in mismatch.problem:
            return f"ALTER TABLE {schema}.{mismatch.table} ENABLE TRIGGER {mismatch.name}"
        return f"{ddl} (in schema {schema})"
