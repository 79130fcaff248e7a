"""set_tenant: the transaction's tenant, for row-level security.

The policies read the setting agentddl.tenant. It is set with set_config(..., true):
local to the transaction, gone at COMMIT or ROLLBACK. A session-level setting outlives
the transaction: behind a transaction-mode pooler (PgBouncer) the server connection then
serves another client's next transaction, which inherits this tenant.
"""

from __future__ import annotations

from agentddl.generator.render.queries.base import Ctx, Query

SETTING = "agentddl.tenant"


def set_tenant(c: Ctx) -> Query:
    sql = f"SELECT set_config('{SETTING}', CAST(:{c.tenant} AS text), true) AS tenant"
    doc = (
        "Name the transaction's tenant for row-level security: run it first in every",
        "transaction of the app role (in autocommit, every statement is a transaction:",
        "open one around the tenant's queries). Transaction-local (set_config's is_local =",
        "true): it ends with the transaction, so a pooled server connection never hands",
        "it to the next client's transaction; one that sets no tenant sees no rows.",
        "index: none (a setting)",
        "returns: the tenant, as text",
    )
    return Query("set_tenant", "$", doc, sql, params=tuple(c.tenant_param()))
