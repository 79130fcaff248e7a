"""open_server: the one way agentddl gets a real PostgreSQL server."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from agentddl.checks.harness.containers import docker_engine_answers, start_container
from agentddl.checks.harness.embedded import EmbeddedCluster
from agentddl.checks.harness.installations import find_installations
from agentddl.checks.harness.server import PostgresServer
from agentddl.generator.errors import AgentDDLError

DSN_ENV = "AGENTDDL_DSN"


def _start_embedded(version: int | None, prefer: int | None) -> PostgresServer | None:
    """A cluster from local binaries: exactly `version`, else `prefer` when installed,
    else the newest installed."""
    installations = find_installations()  # runs `postgres --version` per bin dir: once
    if version is None and installations:
        version = prefer if prefer in installations else max(installations)
    if version is None or version not in installations:
        return None
    cluster = EmbeddedCluster(installations[version], version)
    cluster.start()
    try:
        return PostgresServer(cluster.admin_dsn, stop=cluster.stop)
    except BaseException:
        cluster.stop()
        raise


def _start(version: int | None, prefer: int | None) -> PostgresServer:
    server = _start_embedded(version, prefer)
    if server is not None:
        return server
    if docker_engine_answers():
        dsn, stop = start_container(version)
        try:
            return PostgresServer(dsn, stop=stop)
        except BaseException:
            stop()
            raise
    wanted = f"PostgreSQL {version}" if version else "a PostgreSQL server"
    raise AgentDDLError(
        f"no {wanted} found: run tests/setup/install_postgres.sh {version or ''}".rstrip()
        + f" (make test does), or pass --dsn / {DSN_ENV}=postgresql://..."
    )


@contextlib.contextmanager
def open_server(
    dsn: str | None = None, version: int | None = None, prefer: int | None = None
) -> Iterator[PostgresServer]:
    """dsn (or $AGENTDDL_DSN when dsn is None): use that server and never stop it.

    Otherwise start an embedded server from the newest local installation (exactly
    `version` when given; `prefer` when that major is installed, e.g. a profile's engine
    version), else a testcontainers PostgreSQL when a Docker engine answers, else fail
    with how to get one. A server started here is stopped on exit.
    """
    dsn = dsn or os.environ.get(DSN_ENV) or None
    server = PostgresServer(dsn) if dsn else _start(version, prefer)
    try:
        yield server
    finally:
        server.close()
