"""Trace tests run on PostgreSQL 15 and 18 (the stats machinery differs from 15 on, and 18
is the newest), or on the server at $AGENTDDL_DSN. $AGENTDDL_TEST_PG_VERSIONS narrows them
to the majors it names among 15 and 18 (else to what it names). $AGENTDDL_DSN is the
tests' own server: it must not become the CLI tests' `trace --dsn` (the database to copy),
nor $AGENTDDL_SERVER their --server."""

from __future__ import annotations

import os

import pytest

from agentddl.checks.db import PostgresServer

TRACE_MAJORS = (15, 18)


def _majors() -> tuple[int | None, ...]:
    if os.environ.get("AGENTDDL_DSN"):
        return (None,)
    requested = {
        int(w)
        for w in os.environ.get("AGENTDDL_TEST_PG_VERSIONS", "").replace(",", " ").split()
        if w.isdigit()
    }
    if not requested:
        return TRACE_MAJORS
    return tuple(m for m in TRACE_MAJORS if m in requested) or tuple(sorted(requested))


@pytest.fixture(autouse=True)
def no_database_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Function scope: the session's servers (read from the environment) exist already."""
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)


@pytest.fixture(scope="session", params=_majors(), ids=lambda m: f"pg{m}" if m else "dsn")
def trace_server(request: pytest.FixtureRequest, pg_servers: object) -> PostgresServer:
    server: PostgresServer = pg_servers.get(request.param)  # type: ignore[attr-defined]
    return server
