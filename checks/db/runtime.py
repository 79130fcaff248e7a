"""The generated named queries, run as production runs them.

queries.sql is loaded with aiosql (the way a team's runtime loads it) and every query
runs on one psycopg connection as the role that runs it in production, with its tenant
named for row-level security (queries.sql's set_tenant), so grants and policies apply
exactly as they would. Role and tenant are local to the query's transaction
(set_config(..., true)), never left on the session: behind a transaction-mode pooler the
server connection serves another client's next transaction. On an autocommit
connection each call is a transaction of its own; otherwise it joins the caller's.
The live checks (prove, trace, audit) and the integration tests share this one copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import aiosql
import psycopg
from psycopg import sql

from agentddl.generator.model import SchemaModel
from agentddl.generator.profile import Profile
from agentddl.generator.render.queries import render_queries

Role = Literal["app", "relay", "readonly", "owner"]
TENANT_SETTING = "agentddl.tenant"  # what the row-level security policies read
RELAY_QUERIES = frozenset(
    {"relay_claim", "mark_delivered", "fail_delivery", "dead_letters", "requeue_dead_letter"}
)
# Procedures that commit as they go: they run outside any transaction, as the session.
COMMITTING = frozenset({"maintain_partitions"})


def role_of(query_name: str) -> Role | None:
    """Who runs a query: workers (app), the relay, monitoring (read-only), retention jobs
    and partition maintenance (owner). None: not a generated query name."""
    if query_name in RELAY_QUERIES:
        return "relay"
    if query_name.startswith("health_"):
        return "readonly"
    if query_name.startswith("purge_") or query_name == "maintain_partitions":
        return "owner"
    return "app" if query_name.isidentifier() else None


def production_role(profile: Profile, query_name: str) -> str | None:
    """The profile's role name that runs `query_name` in production; None: the connecting
    user (pg_partman's maintenance runs as the tables' owner, who applied the schema)."""
    if query_name == "maintain_partitions" and profile.retention.partition_manager == "pg_partman":
        return None
    kind = role_of(query_name)
    return None if kind is None else profile.role(kind)


def load_queries(model: SchemaModel, text: str | None = None) -> Any:
    """aiosql's query object for the model's queries.sql (or for `text`, a variant of it)."""
    return aiosql.from_str(render_queries(model) if text is None else text, "psycopg")


class Runtime:
    """A model's named queries (queries.sql via aiosql) on one psycopg connection; each query
    runs as the role that runs it in production (app / relay / readonly / owner, from the
    profile's role names), with the session's tenant set for row-level security."""

    def __init__(
        self,
        model: SchemaModel,
        connection: psycopg.Connection[dict[str, Any]],
        tenant: Any | None = None,
        queries: Any | None = None,
    ) -> None:
        """`queries`: an already loaded query object (load_queries), to share one between
        connections or to run a transformed queries.sql."""
        self.model = model
        self.profile = model.profile
        self.connection = connection
        self.tenant = tenant
        self.queries = queries if queries is not None else load_queries(model)
        self.names = frozenset(p.name for p in model.access_paths)
        self.pinned: str | None = None  # the role this connection was pinned to (pin())

    def on(self, connection: psycopg.Connection[dict[str, Any]], tenant: Any | None = None) -> Runtime:
        """The same queries on another connection (and tenant: None keeps this one's)."""
        return Runtime(self.model, connection, self.tenant if tenant is None else tenant, self.queries)

    def pin(self, kind: Role = "app") -> Runtime:
        """Make the connection one role's session for good, as a production worker's pooled
        connection is: the role (and the tenant) are set once and committed here, and
        call() no longer sets and resets them around every query, so what is measured on
        it is the queries alone. A query of another role is then a ValueError."""
        conn, role = self.connection, self.profile.role(kind)
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
        if self.tenant is not None:
            conn.execute("SELECT set_config(%s, %s, false)", [TENANT_SETTING, str(self.tenant)])
        if not conn.autocommit:
            conn.commit()
        self.pinned = role
        return self

    def call(self, name: str, **params: Any) -> Any:
        """Run query `name` as its production role, its tenant named; many rows come back
        as a list. A failed statement rolls a non-autocommit transaction back. A pinned
        session (pin()) keeps its role and tenant and runs the query alone."""
        if name not in self.names:
            raise KeyError(f"queries.sql has no query named {name!r}")
        conn = self.connection
        if self.pinned is not None:
            role = production_role(self.profile, name)
            if role != self.pinned:
                raise ValueError(f"{name} runs as {role}, not as this session's pinned role {self.pinned}")
            return self._rolled_back_on_error(self._run, name, params)
        if name in COMMITTING and self._builtin_maintenance:
            return self._call_committing(name, params)
        if conn.autocommit:
            with conn.transaction():
                return self._call_in_transaction(name, params)
        return self._rolled_back_on_error(self._call_in_transaction, name, params)

    @property
    def _builtin_maintenance(self) -> bool:
        return self.profile.retention.partition_manager != "pg_partman"

    def _call_in_transaction(self, name: str, params: dict[str, Any]) -> Any:
        """Role and tenant for this transaction only; the role is handed back after the
        query (a rolled-back transaction drops both anyway)."""
        conn = self.connection
        role = production_role(self.profile, name)
        if role is not None:
            conn.execute("SELECT set_config('role', %s, true)", [role])
        if self.tenant is not None and "set_tenant" in self.names:
            column = self.profile.tenancy.column
            self.queries.set_tenant(conn, **{str(column): self.tenant})
        result = self._run(name, params)
        if role is not None:
            conn.execute("SELECT set_config('role', 'none', true)")
        return result

    def _call_committing(self, name: str, params: dict[str, Any]) -> Any:
        """A procedure that commits after each step: on an autocommit connection only, as
        its role for the call."""
        conn = self.connection
        if not conn.autocommit:
            raise ValueError(f"{name} commits as it goes: call it on an autocommit connection")
        role = production_role(self.profile, name)
        if role is not None:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
        try:
            return self._run(name, params)
        finally:
            if not conn.closed and role is not None:
                conn.execute("RESET ROLE")

    def _rolled_back_on_error(
        self, run: Callable[[str, dict[str, Any]], Any], name: str, params: dict[str, Any]
    ) -> Any:
        conn = self.connection
        try:
            return run(name, params)
        finally:
            if not conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                conn.rollback()

    def _run(self, name: str, params: dict[str, Any]) -> Any:
        result = getattr(self.queries, name)(self.connection, **params)
        return list(result) if isinstance(result, Iterator) else result
