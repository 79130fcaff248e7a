"""ADV127 row-level-security."""

from __future__ import annotations

from collections.abc import Iterator

from agentddl.checks.findings import Finding
from agentddl.checks.verify.declared import live_shapes, mismatches, reference_of
from agentddl.checks.verify.types import Connection, Rule, VerifyContext


class RowLevelSecurity(Rule):
    """Row-level security is off where the profile turns it on, or its policies differ.

    ## What it does
    When the profile asks for row-level security (`tenancy.row_level_security`),
    compares each table's `relrowsecurity` / `relforcerowsecurity` and every policy
    (command, permissive or restrictive, roles, USING and WITH CHECK expressions as
    PostgreSQL deparses them) with the reference installation of the profile's
    schema.sql. Where the profile does not ask for it, a table with row-level
    security on is reported too: the app role would see no rows.

    ## Why is this bad?
    With row-level security off, the tenant isolation the profile promises rests
    on every query's WHERE clause; a single forgotten predicate shows one tenant's
    runs to another.

    ## Example
    ```sql
    ALTER TABLE agent.runs DISABLE ROW LEVEL SECURITY;
    ```

    ## Use instead
    ```sql
    ALTER TABLE agent.runs ENABLE ROW LEVEL SECURITY;
    ```

    ## References
    - https://www.postgresql.org/docs/current/ddl-rowsecurity.html
    """

    code = "ADV127"
    name = "row-level-security"
    severity = "error"
    group = "profile"

    def check(self, connection: Connection, context: VerifyContext) -> Iterator[Finding]:
        declared = reference_of(context).shapes
        live = live_shapes(connection, context)
        schema = context.schemas[0]
        for table, shape in sorted(declared.objects["tables"].items()):
            wanted, found = dict(shape), dict(live.get("tables", table) or ())
            if found and wanted["row_security"] != found["row_security"]:
                on = bool(wanted["row_security"])
                yield self.finding(
                    f"{schema}.{table}",
                    f"row-level security on {schema}.{table} is {'off' if on else 'on'}; "
                    f"the profile has it {'on' if on else 'off'}.",
                    f"ALTER TABLE {schema}.{table} {'ENABLE' if on else 'DISABLE'} ROW LEVEL SECURITY",
                )
        for mismatch in mismatches("policies", declared, live):
            yield self.finding(
                f"{schema}.{mismatch.table}.{mismatch.name}",
                f"policy {mismatch.name} on {schema}.{mismatch.table} is {mismatch.problem}.",
                "re-create the policy from the profile's schema.sql (the <table>_rls block)",
            )
