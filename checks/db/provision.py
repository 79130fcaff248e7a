"""open_server: the one way agentddl gets a real PostgreSQL server."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

from agentddl.checks.db.containers import docker_engine_answers, start_container
from agentddl.checks.db.embedded import EmbeddedCluster
from agentddl.checks.db.installations import find_installations
from agentddl.checks.db.server import PostgresServer
from agentddl.generator.errors import AgentDDLError


def _start_embedded(
    version: int | None,
    prefer: int | None,
    durable: bool,
    preload: tuple[str, ...] = (),
    settings: Mapping[str, str] | None = None,
) -> PostgresServer | None:
    """A cluster from local binaries: exactly `version`, else `prefer` when installed,
    else the newest installed."""
    installations = find_installations()  # runs `postgres --version` per bin dir: once
    if version is None and installations:
        version = prefer if prefer in installations else max(installations)
    if version is None or version not in installations:
        return None
    chosen = {**({"shared_preload_libraries": ",".join(preload)} if preload else {}), **(settings or {})}
    cluster = EmbeddedCluster(installations[version], version, durable=durable, settings=chosen)
    cluster.start()
    try:
        return PostgresServer(cluster.admin_dsn, stop=cluster.stop, local=cluster)
    except BaseException:
        cluster.stop()
        raise


def _start(
    version: int | None,
    prefer: int | None,
    durable: bool,
    preload: tuple[str, ...],
    settings: Mapping[str, str] | None,
) -> PostgresServer:
    server = _start_embedded(version, prefer, durable, preload, settings)
    if server is not None:
        return server
    if docker_engine_answers() and not preload and not settings:
        dsn, stop = start_container(version)
        try:
            return PostgresServer(dsn, stop=stop)
        except BaseException:
            stop()
            raise
    wanted = f"PostgreSQL {version}" if version else "a PostgreSQL server"
    raise AgentDDLError(
        f"no {wanted} found: run tests/setup/install_postgres.sh {version or ''}".rstrip()
        + " (make test does), or pass --server (or --dsn) postgresql://..."
    )


@contextlib.contextmanager
def open_server(
    dsn: str | None = None,
    version: int | None = None,
    prefer: int | None = None,
    durable: bool = False,
    preload: tuple[str, ...] = (),
    settings: Mapping[str, str] | None = None,
) -> Iterator[PostgresServer]:
    """dsn: use that server (any database on it) and never stop it.

    Otherwise start an embedded server from the newest local installation (exactly
    `version` when given; `prefer` when that major is installed, e.g. a profile's engine
    version), else a testcontainers PostgreSQL when a Docker engine answers, else fail
    with how to get one. A server started here is stopped on exit. durable: an embedded
    server commits as production does (fsync, full_page_writes, synchronous_commit on,
    data on disk) instead of the fast scratch settings; a container's are durable anyway.
    preload: libraries an embedded server loads at start (shared_preload_libraries, e.g.
    pg_stat_statements); no container is started for it. settings: more settings of an
    embedded server (e.g. synchronous_commit), over the others; no container either.
    """
    server = PostgresServer(dsn) if dsn else _start(version, prefer, durable, preload, settings)
    try:
        yield server
    finally:
        server.close()


def scratch_server(
    server: str | None,
    dsn: str | None,
    pg_version: int | None,
    prefer: int | None = None,
    durable: bool = False,
    settings: Mapping[str, str] | None = None,
) -> contextlib.AbstractContextManager[PostgresServer]:
    """The server a command creates scratch databases on: --server, else --dsn's server,
    else an embedded one (exactly --pg-version when given, else `prefer` when installed).
    --pg-version names the embedded server to start: it cannot be combined with a server.
    durable: an embedded server started here commits durably (see open_server)."""
    given = server or dsn
    if given and pg_version is not None:
        raise AgentDDLError("--pg-version starts an embedded server: not with --server or --dsn")
    return open_server(given, version=pg_version, prefer=prefer, durable=durable, settings=settings)
