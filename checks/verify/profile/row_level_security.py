"""ADV127 row-level-security."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentddl.checks.catalog_rules.types import Connection, Rule, VerifyContext, fetch
from agentddl.checks.core.findings import Finding
from agentddl.checks.db.catalog import Difference, Snapshot
from agentddl.checks.verify.declared import differences, live_snapshot, mismatches, reference_of


class RowLevelSecurity(Rule):
    """Row-level security is off where the profile turns it on, or its policies differ.

    ## What it does
    When the profile asks for row-level security (`tenancy.row_level_security`),
    compares each table's `relrowsecurity` / `relforcerowsecurity` and every policy
    (command, permissive or restrictive, roles, USING and WITH CHECK expressions as
    PostgreSQL deparses them) with the reference installation of the profile's
    schema.sql. Where the profile does not ask for it, a table with row-level
    security on is reported too: the app role would see no rows. A policy the profile
    does not declare is reported (a permissive one is ORed with the tenant policy and
    widens it), and so is a role the tenant policies restrict that is `SUPERUSER` or
    `BYPASSRLS` (policies never apply to it).

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
        declared = reference_of(context).snapshot
        live = live_snapshot(connection, context)
        found = differences(connection, context)
        schema = context.schemas[0]
        for table, shape in sorted(declared.objects["tables"].items()):
            yield from self._switches(f"{schema}.{table}", dict(shape), dict(live.get("tables", table) or ()))
        for mismatch in mismatches("policies", found, declared, live):
            yield self.finding(
                f"policy {mismatch.name} on {schema}.{mismatch.table}: {mismatch.problem}.",
                "re-create the policy from the profile's schema.sql (the <table>_rls block)",
                object=f"{schema}.{mismatch.table}.{mismatch.name}",
            )
        yield from self._undeclared_policies(schema, found, declared, live)
        yield from self._bypassing_roles(connection, declared)

    def _switches(self, table: str, wanted: dict[str, Any], found: dict[str, Any]) -> Iterator[Finding]:
        """ENABLE / FORCE ROW LEVEL SECURITY as the profile has them (FORCE: the owner too)."""
        for switch, words, off in _SWITCHES:
            if found and wanted[switch] != found[switch]:
                on = bool(wanted[switch])
                yield self.finding(
                    f"{words.lower()} on {table} is {'off' if on else 'on'}; "
                    f"the profile has it {'on' if on else 'off'}.",
                    f"ALTER TABLE {table} {words if on else off}",
                    object=table,
                )

    def _undeclared_policies(
        self, schema: str, found: list[Difference], declared: Snapshot, live: Snapshot
    ) -> Iterator[Finding]:
        """Policies the profile doesn't declare: a permissive one is ORed with the declared
        ones (it widens what a role sees), a restrictive one hides rows the runtime needs."""
        tables = declared.names("tables")
        for difference in found:
            name, table = difference.name, difference.table
            if difference.kind != "policies" or difference.what != "unexpected" or table not in tables:
                continue
            permissive = dict(live.objects["policies"][name])["permissive"]
            effect = (
                "widens what its roles see (permissive policies are ORed)"
                if permissive
                else "hides rows the runtime's queries expect (restrictive)"
            )
            yield self.finding(
                f"policy {name} on {schema}.{table} is not in the profile: it {effect}.",
                f"DROP POLICY {name} ON {schema}.{table}",
                object=f"{schema}.{table}.{name}",
            )

    def _bypassing_roles(self, connection: Connection, declared: Snapshot) -> Iterator[Finding]:
        """Roles the declared policies restrict that skip row-level security altogether."""
        policies = [dict(shape) for shape in declared.objects.get("policies", {}).values()]
        restricted = sorted({role for p in policies if p["using"] not in ("", "true") for role in p["roles"]})
        for row in fetch(connection, _ROLE_BYPASS_SQL, {"roles": restricted}):
            attribute = "SUPERUSER" if row["superuser"] else "BYPASSRLS"
            yield self.finding(
                f"role {row['role']} is {attribute}: the tenant policies that restrict it are skipped.",
                f"ALTER ROLE {row['role']} NO{attribute}",
                object=row["role"],
            )


_SWITCHES = (  # (shape field, the clause that turns it on, the one that turns it off)
    ("row_security", "ENABLE ROW LEVEL SECURITY", "DISABLE ROW LEVEL SECURITY"),
    ("force_row_security", "FORCE ROW LEVEL SECURITY", "NO FORCE ROW LEVEL SECURITY"),
)
_ROLE_BYPASS_SQL = """
    SELECT quote_ident(rolname) AS role, rolsuper AS superuser
    FROM pg_roles WHERE rolname = ANY(%(roles)s) AND (rolsuper OR rolbypassrls) ORDER BY 1"""
