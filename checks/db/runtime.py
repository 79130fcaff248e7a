"""The generated named queries, run as production runs them.

queries.sql is loaded with aiosql (the way a team's runtime loads it) and every query
runs on one psycopg connection as the role that runs it in production, with the
session's tenant set, so grants and row-level security apply exactly as they would.
The live checks (prove, trace, audit) and the integration tests share this one copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import aiosql
import psycopg
from psycopg import sql

from agentddl.generator.model import SchemaModel
from agentddl.generator.profile import Profile
from agentddl.generator.render.queries import render_queries

Role = Literal["app", "relay", "readonly", "owner"]
TENANT_SETTING = "agentddl.tenant"  # what the row-level security policies read


def role_of(query_name: str) -> Role | None:
    """Who runs a query: workers (app), the relay, monitoring (read-only), retention jobs
    and partition maintenance (owner). None: not a generated query name."""
    if query_name in ("relay_claim", "mark_delivered"):
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
        """Run query `name` as its production role; many rows come back as a list. A failed
        statement rolls a non-autocommit transaction back, and the role is always reset
        (a pinned session keeps its role and tenant: see pin())."""
        if name not in self.names:
            raise KeyError(f"queries.sql has no query named {name!r}")
        role = production_role(self.profile, name)
        if self.pinned is not None:
            if role != self.pinned:
                raise ValueError(f"{name} runs as {role}, not as this session's pinned role {self.pinned}")
            return self._run(name, params)
        conn = self.connection
        if role is not None:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
        if self.tenant is not None:
            conn.execute("SELECT set_config(%s, %s, false)", [TENANT_SETTING, str(self.tenant)])
        try:
            return self._run(name, params)
        finally:
            if not conn.closed:
                conn.execute("RESET ROLE")

    def _run(self, name: str, params: dict[str, Any]) -> Any:
        """The query itself; a failed statement rolls a non-autocommit transaction back."""
        conn = self.connection
        try:
            result = getattr(self.queries, name)(conn, **params)
            return list(result) if isinstance(result, Iterator) else result
        finally:
            if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                conn.rollback()
