"""Grants per role and optional row-level security policies."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.generator.model.names import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import SqlBlock, Table

# What the app (workers) may do per table. Events: INSERT and SELECT only — history is
# append-only, and retention drops partitions as the owner, not as the app.
APP_PRIVILEGES = {
    "tenants": "SELECT",
    "runs": "SELECT, INSERT, UPDATE",
    "run_queue": "SELECT, INSERT, UPDATE, DELETE",  # the live set: completion deletes its row
    "attempts": "SELECT, INSERT, UPDATE",
    "checkpoints": "SELECT, INSERT",
    "events": "SELECT, INSERT",
    "operations": "SELECT, INSERT, UPDATE",
    "outbox": "SELECT, INSERT",
    "node_executions": "SELECT, INSERT, UPDATE",
    "tool_calls": "SELECT, INSERT, UPDATE",
    "approvals": "SELECT, INSERT, UPDATE",
    "attempt_notes": "SELECT, INSERT",  # append-only, like events
}
RELAY_PRIVILEGES = {"outbox": "SELECT, UPDATE"}


def grant_statements(s: Scope, tables: tuple[Table, ...]) -> tuple[str, ...]:
    """Every GRANT, in the order a fresh install runs them (a later revision re-runs the
    ones it needs: each is idempotent)."""
    q = quote(s.profile.schema_name)
    owner, app, relay, readonly = (quote(s.profile.role(k)) for k in ("owner", "app", "relay", "readonly"))
    lines = [
        f"GRANT USAGE ON SCHEMA {q} TO {owner}, {app}, {relay}, {readonly}",
        f"GRANT ALL ON ALL TABLES IN SCHEMA {q} TO {owner}",
        f"GRANT ALL ON ALL SEQUENCES IN SCHEMA {q} TO {owner}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {q} TO {readonly}",
        f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {q} TO {app}",
    ]
    for table in tables:
        if table.name in APP_PRIVILEGES:
            lines.append(f"GRANT {APP_PRIVILEGES[table.name]} ON {q}.{table.name} TO {app}")
        if table.name in RELAY_PRIVILEGES:
            lines.append(f"GRANT {RELAY_PRIVILEGES[table.name]} ON {q}.{table.name} TO {relay}")
    return tuple(lines)


def grants(s: Scope, tables: tuple[Table, ...]) -> SqlBlock:
    return SqlBlock(
        "grants",
        ";\n".join(grant_statements(s, tables)),
        "least privilege per role; events not updatable by the app",
    )


@dataclass(frozen=True)
class Policy:
    name: str
    table: str
    roles: str  # the TO clause: quoted role names
    using: str
    check: str | None = None
    command: str | None = None  # FOR SELECT, ...; None: every command
    multiline: bool = False  # USING and WITH CHECK on lines of their own

    def create(self, schema: str) -> str:
        head = f"CREATE POLICY {self.name} ON {quote(schema)}.{self.table}"
        head += f" FOR {self.command}" if self.command else ""
        sep = "\n" if self.multiline else " "
        text = f"{head} TO {self.roles}{sep}USING ({self.using})"
        return text + (f"{sep}WITH CHECK ({self.check})" if self.check else "")


def policies(s: Scope, table: Table) -> tuple[Policy, ...]:
    """The policies of one table when row-level security is on (else none)."""
    if not (s.profile.tenancy.row_level_security and s.tenant):
        return ()
    app, relay, readonly, owner = (quote(s.profile.role(k)) for k in ("app", "relay", "readonly", "owner"))
    current = f"nullif(current_setting('agentddl.tenant', TRUE), '')::{s.profile.tenancy.type}"
    own = f"{s.tenant} = {current}"
    # the owner role sees every tenant only where no tenant is named (retention, maintenance)
    owner_scope = f"{current} IS NULL OR {own}"
    found = [
        Policy(f"{table.name}_tenant_isolation", table.name, app, own, check=own, multiline=True),
        Policy(f"{table.name}_readonly", table.name, readonly, "TRUE", command="SELECT"),
        Policy(f"{table.name}_owner", table.name, owner, owner_scope, check=owner_scope, multiline=True),
    ]
    if table.name == "outbox":
        found.append(Policy("outbox_relay", table.name, relay, "TRUE"))
    return tuple(found)


def row_level_security(s: Scope, tables: tuple[Table, ...]) -> tuple[SqlBlock, ...]:
    """Tenant isolation for the app role: it sees rows of the tenant its transaction names
    in the setting `agentddl.tenant` (set_tenant: set_config(..., true), which ends with
    the transaction). Cross-tenant roles keep their jobs: the relay reads the whole
    outbox, read-only monitoring reads everything, the owner role runs retention in
    sessions that name no tenant. FORCE holds the tables' owner (the owner role) to the
    policies too: a session of it that names a tenant sees only that tenant's rows,
    where without FORCE the owner of a table skips its policies altogether."""
    q = quote(s.profile.schema_name)
    blocks = []
    for table in tables:
        found = policies(s, table)
        if not found:
            continue
        statements = [
            f"ALTER TABLE {q}.{table.name} ENABLE ROW LEVEL SECURITY",
            f"ALTER TABLE {q}.{table.name} FORCE ROW LEVEL SECURITY",
        ]
        statements += [p.create(s.profile.schema_name) for p in found]
        blocks.append(
            SqlBlock(f"{table.name}_rls", ";\n".join(statements), "tenant isolation enforced by the database")
        )
    return tuple(blocks)
