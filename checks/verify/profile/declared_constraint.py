"""ADV122 declared-constraint."""

from __future__ import annotations

from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.verify.declared import DeclaredObjectsRule, Mismatch


class DeclaredConstraint(DeclaredObjectsRule):
    """A constraint the profile declares is missing, defined otherwise, or not validated.

    ## What it does
    Compares every primary key, unique, CHECK, foreign key and exclusion constraint
    of the reference installation (the profile's schema.sql in a scratch database on
    the same server) with the live constraint of the same name: its kind and its
    definition as PostgreSQL deparses it from the catalog (columns, referenced table
    and columns, actions, deferrability, the CHECK expression after normalization).
    A live constraint that is `NOT VALID` is reported as not validated, and a foreign
    key whose internal triggers are disabled (`ALTER TABLE ... DISABLE TRIGGER ALL`,
    on either table or on a partition) as not enforced: PostgreSQL no longer checks it.

    ## Why is this bad?
    The invariants of a durable runtime live in these constraints: tenant-scoped
    keys, lifecycle states, size bounds on payloads, fencing tokens that only grow.
    A missing or weakened one means the application's checks are the only guard.

    ## Example
    ```sql
    ALTER TABLE agent.events DROP CONSTRAINT events_payload_size_check;
    ```

    ## Use instead
    Add it back without blocking writes, then validate:
    ```sql
    ALTER TABLE agent.events ADD CONSTRAINT events_payload_size_check
        CHECK (octet_length(payload::text) <= 8192) NOT VALID;
    ALTER TABLE agent.events VALIDATE CONSTRAINT events_payload_size_check;
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-constraints.html
    """

    code = "ADV122"
    name = "declared-constraint"
    severity = "error"
    kind = "constraints"
    noun = "constraint"

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        if mismatch.problem == "not validated":
            return f"ALTER TABLE {schema}.{mismatch.table} VALIDATE CONSTRAINT {mismatch.name}"
        if mismatch.problem == "differs from the profile: enforced false (declared: true)":
            return (
                f"ALTER TABLE {schema}.{mismatch.table} ENABLE TRIGGER ALL (and on the table it "
                "references), then look for rows written meanwhile that break it"
            )
        ddl = declared.ddl["constraints"].get(mismatch.name, "")
        return f"{ddl} in schema {schema} (CHECK and FOREIGN KEY: NOT VALID, then VALIDATE)"
