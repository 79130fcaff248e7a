"""Fixtures shared by every test.

Real PostgreSQL servers come from agentddl.checks.db: one embedded server per major
for the whole session, started when a test first needs it. Which majors:
$AGENTDDL_TEST_PG_VERSIONS (e.g. "14,15,18"), else every installed major in 14..18;
with $AGENTDDL_DSN set, only that server.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator

import pytest

from agentddl.checks.db import PostgresServer, find_installations, open_server
from agentddl.generator.errors import AgentDDLError

SUPPORTED_MAJORS = range(14, 19)
VERSIONS_ENV = "AGENTDDL_TEST_PG_VERSIONS"
INSTALL_HINT = "run tests/setup/install_postgres.sh MAJOR... (make test does)"


@functools.cache
def tested_majors() -> tuple[int | None, ...]:
    """The majors integration tests run on; (None,) means the server at $AGENTDDL_DSN."""
    if os.environ.get("AGENTDDL_DSN"):
        return (None,)
    try:
        installed = find_installations()
    except AgentDDLError as error:
        raise pytest.UsageError(str(error)) from error
    requested = os.environ.get(VERSIONS_ENV, "").replace(",", " ").split()
    if not requested:
        majors = tuple(m for m in installed if m in SUPPORTED_MAJORS)
        if not majors:
            raise pytest.UsageError(
                f"no PostgreSQL {SUPPORTED_MAJORS[0]}..18 found: {INSTALL_HINT}"
            )
        return majors
    if not all(word.isdigit() for word in requested):
        raise pytest.UsageError(
            f"{VERSIONS_ENV}={os.environ[VERSIONS_ENV]!r}: expected e.g. 14,15,18"
        )
    missing = [int(w) for w in requested if int(w) not in installed]
    if missing:
        raise pytest.UsageError(
            f"{VERSIONS_ENV} asks for PostgreSQL {missing}, not installed "
            f"(found {sorted(installed)}): {INSTALL_HINT}"
        )
    return tuple(sorted({int(w) for w in requested}))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "pg_server" in metafunc.fixturenames:
        majors = tested_majors()  # a UsageError here fails the session with its message
        if (oldest := metafunc.definition.get_closest_marker("min_pg")) is not None:
            majors = tuple(m for m in majors if m is None or m >= oldest.args[0])
        ids = [f"pg{m}" if m is not None else "dsn" for m in majors]
        metafunc.parametrize("pg_server", majors, ids=ids, indirect=True, scope="session")


class ServerPool:
    """Servers by major (None: $AGENTDDL_DSN), started on first use, stopped at close()."""

    def __init__(self) -> None:
        self._servers: dict[int | None, PostgresServer] = {}
        self._stack = contextlib.ExitStack()

    def get(self, major: int | None) -> PostgresServer:
        if major not in self._servers:
            dsn = os.environ.get("AGENTDDL_DSN") if major is None else None
            self._servers[major] = self._stack.enter_context(open_server(dsn, version=major))
        return self._servers[major]

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="session")
def pg_servers() -> Iterator[ServerPool]:
    pool = ServerPool()
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest, pg_servers: ServerPool) -> PostgresServer:
    """A real server, once per tested major (test ids pg14, pg15, ...)."""
    major: int | None = request.param
    return pg_servers.get(major)


@pytest.fixture(scope="session")
def pg_server_latest(pg_servers: ServerPool) -> PostgresServer:
    """The newest tested major only, for tests that need just one server."""
    majors = tested_majors()
    return pg_servers.get(None if majors == (None,) else max(m for m in majors if m))


@pytest.fixture
def scratch_dsn(pg_server: PostgresServer) -> Iterator[str]:
    """A fresh empty database on pg_server, dropped after the test."""
    with pg_server.scratch_database() as dsn:
        yield dsn


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis (Debian's redis-server, throwaway, no persistence) for the session:
    the hot projection's guarantees are Lua scripts and TTLs, which no fake runs."""
    from agentddl.checks.db.redis_server import open_redis

    with open_redis() as server:
        yield server.url
