"""EXPLAIN one access path with its example parameters, in a transaction rolled back.

Reads and writes alike run inside a transaction that is always rolled back, as the
role that runs the query in production (grants and row-level security apply), with
the session's tenant set for RLS. ANALYZE, BUFFERS actually execute the statement (a
claim claims, a purge deletes) and the rollback undoes it; plain EXPLAIN only plans.
Parameters are bound client-side so the planner sees the example values (a custom
plan, as the first executions of a prepared statement get).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.db import error_line
from agentddl.checks.db.runtime import TENANT_SETTING

STATEMENT_TIMEOUT = "60s"


@dataclass(frozen=True)
class ExplainRequest:
    sql: str  # psycopg style: %(name)s placeholders
    params: dict[str, object]
    role: str | None = None  # SET ROLE to this for the statement
    tenant: object | None = None  # the session's tenant (row-level security)
    analyze: bool = False
    generic: bool = False  # EXPLAIN (GENERIC_PLAN), 16+: sql has $n placeholders, no params


class ExplainError(Exception):
    """The server refused to plan (or run) the statement."""

    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def explain(conn: psycopg.Connection[Any], request: ExplainRequest) -> dict[str, Any]:
    """The JSON plan document (EXPLAIN's single top-level object)."""
    options = "ANALYZE, BUFFERS, FORMAT JSON" if request.analyze else "FORMAT JSON"
    if request.generic:
        options = "GENERIC_PLAN, FORMAT JSON"
    try:
        with conn.transaction(force_rollback=True):
            conn.execute(sql.SQL("SET LOCAL statement_timeout = {}").format(sql.Literal(STATEMENT_TIMEOUT)))
            if request.role:
                _set_role(conn, request.role)
            if request.tenant is not None:
                conn.execute("SELECT set_config(%s, %s, true)", [TENANT_SETTING, str(request.tenant)])
            cursor = psycopg.ClientCursor(conn)
            cursor.execute(f"EXPLAIN ({options}) {request.sql}", None if request.generic else request.params)
            row = cursor.fetchone()
    except psycopg.Error as error:
        raise ExplainError(error_line(error), error.sqlstate) from error
    assert row is not None
    document = row[0]
    return dict(document[0] if isinstance(document, list) else document)


def _set_role(conn: psycopg.Connection[Any], role: str) -> None:
    """Run as the production role when this session may; a user who is not a member of
    it (an external --dsn) plans as itself, which only differs under row-level security."""
    try:
        with conn.transaction():  # a savepoint: a refused SET ROLE leaves the rest usable
            conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(role)))
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedObject):
        return  # not a member, or (a clone on another server) no such role
