"""Grants per role and optional row-level security policies."""

from __future__ import annotations

from agentddl.generator.model.blocks import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import SqlBlock, Table

# What the app (workers) may do per table. Events: INSERT and SELECT only — history is
# append-only, and retention drops partitions as the owner, not as the app.
APP_PRIVILEGES = {
    "tenants": "SELECT",
    "runs": "SELECT, INSERT, UPDATE",
    "attempts": "SELECT, INSERT, UPDATE",
    "checkpoints": "SELECT, INSERT",
    "events": "SELECT, INSERT",
    "operations": "SELECT, INSERT, UPDATE",
    "outbox": "SELECT, INSERT",
}
RELAY_PRIVILEGES = {"outbox": "SELECT, UPDATE"}


def grants(s: Scope, tables: tuple[Table, ...]) -> SqlBlock:
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
    return SqlBlock("grants", ";\n".join(lines), "least privilege per role; events not updatable by the app")


def row_level_security(s: Scope, tables: tuple[Table, ...]) -> tuple[SqlBlock, ...]:
    """Tenant isolation for the app role: it sees rows of the tenant its transaction names
    in the setting `agentddl.tenant` (set_tenant: set_config(..., true), which ends with
    the transaction). Cross-tenant roles keep their jobs: the relay reads the whole
    outbox, read-only monitoring reads everything, the owner role runs retention in
    sessions that name no tenant. FORCE holds the tables' owner (the owner role) to the
    policies too: a session of it that names a tenant sees only that tenant's rows,
    where without FORCE the owner of a table skips its policies altogether."""
    if not (s.profile.tenancy.row_level_security and s.tenant):
        return ()
    q = quote(s.profile.schema_name)
    app, relay, readonly, owner = (quote(s.profile.role(k)) for k in ("app", "relay", "readonly", "owner"))
    current = f"nullif(current_setting('agentddl.tenant', TRUE), '')::{s.profile.tenancy.type}"
    owner_scope = f"{current} IS NULL OR {s.tenant} = {current}"
    blocks = []
    for table in tables:
        target = f"{q}.{table.name}"
        statements = [
            f"ALTER TABLE {target} ENABLE ROW LEVEL SECURITY",
            f"ALTER TABLE {target} FORCE ROW LEVEL SECURITY",
            f"CREATE POLICY {table.name}_tenant_isolation ON {target} TO {app}\n"
            f"USING ({s.tenant} = {current})\nWITH CHECK ({s.tenant} = {current})",
            f"CREATE POLICY {table.name}_readonly ON {target} FOR SELECT TO {readonly} USING (TRUE)",
            f"CREATE POLICY {table.name}_owner ON {target} TO {owner}\n"
            f"USING ({owner_scope})\nWITH CHECK ({owner_scope})",
        ]
        if table.name == "outbox":
            statements.append(f"CREATE POLICY outbox_relay ON {target} TO {relay} USING (TRUE)")
        blocks.append(
            SqlBlock(f"{table.name}_rls", ";\n".join(statements), "tenant isolation enforced by the database")
        )
    return tuple(blocks)
