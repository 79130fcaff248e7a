"""ADV123 declared-column."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.catalog_rules.types import Connection, VerifyContext
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.catalog import Snapshot
from agentddl.checks.verify.declared import DeclaredObjectsRule, Mismatch, differences, missing_tables


class DeclaredColumn(DeclaredObjectsRule):
    """A table or column the profile declares is missing, or a column differs in type,
    NOT NULL, default or identity.

    ## What it does
    Compares every column of the reference installation's tables (the profile's
    schema.sql in a scratch database on the same server) with the live column: type
    with modifiers, `NOT NULL` (and, on 18+, whether it is validated), default
    expression and identity. A missing table is
    one finding (its columns, indexes and constraints are not listed one by one).

    ## Why is this bad?
    `NOT NULL` on ownership columns (tenant, run) is an invariant: without it a row
    can belong to nobody. A different type or default changes what the generated
    queries read and write (a `timestamp` for a `timestamptz`, a lost `DEFAULT
    now()`).

    ## Example
    ```sql
    ALTER TABLE agent.outbox ALTER COLUMN run_id DROP NOT NULL;
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.outbox ADD CONSTRAINT outbox_run_id_not_null CHECK (run_id IS NOT NULL) NOT VALID;
    ALTER TABLE agent.outbox VALIDATE CONSTRAINT outbox_run_id_not_null;
    ALTER TABLE agent.outbox ALTER COLUMN run_id SET NOT NULL;  -- uses the CHECK: no scan (12+)
    ALTER TABLE agent.outbox DROP CONSTRAINT outbox_run_id_not_null;
    ```

    ## References
    - https://www.postgresql.org/docs/current/sql-altertable.html
    """

    code = "ADV123"
    name = "declared-column"
    severity = "error"
    kind = "columns"
    noun = "column"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        schema = context.schemas[0]
        for table in missing_tables(differences(connection, context)):
            yield self.finding(
                f"table {schema}.{table} is missing: the runtime's queries on it fail.",
                "create it (and its indexes, constraints, grants) from the profile's schema.sql",
                object=f"{schema}.{table}",
            )
        yield from super().check(connection, context)

    def fix(self, mismatch: Mismatch, declared: Snapshot, schema: str) -> str:
        column = mismatch.name.split(".", 1)[1]
        definition = declared.ddl["columns"].get(mismatch.name, "")
        return f"make {schema}.{mismatch.table}.{column} {definition} again (NOT NULL: via a validated CHECK)"
