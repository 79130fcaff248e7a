"""A real PgBouncer in transaction mode in front of a server, with one server connection
per database: every client's transaction runs on the same server session, one after
another, the way a busy production pooler hands sessions around. What runs behind a
transaction-mode pooler (tenancy per transaction, a pooler restart) is tried on it.

Debian's pgbouncer package (`apt-get install pgbouncer`; tests/setup/install_postgres.sh
installs it) runs as the unprivileged server user when we are root, like the embedded
PostgreSQL; a throwaway `LocalServer` like it.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

from agentddl.checks.db.connect import connect
from agentddl.checks.db.process import LocalServer
from agentddl.generator.errors import AgentDDLError

DEBIAN_BINARY = Path("/usr/sbin/pgbouncer")
INSTALL_HINT = "apt-get install pgbouncer (tests/setup/install_postgres.sh does)"
STARTUP_TIMEOUT_SECONDS = 15.0


def find_pgbouncer() -> Path:
    found = shutil.which("pgbouncer") or (str(DEBIAN_BINARY) if DEBIAN_BINARY.is_file() else None)
    if found is None:
        raise AgentDDLError(f"no pgbouncer found: {INSTALL_HINT}")
    return Path(found)


def pgbouncer_installed() -> bool:
    return shutil.which("pgbouncer") is not None or DEBIAN_BINARY.is_file()


class PgBouncer(LocalServer):
    """PgBouncer (transaction mode, `pool_size` server connections per database, trust
    authentication as postgres) in front of the server of `server_admin_dsn`."""

    what = "pgbouncer"
    startup_timeout = STARTUP_TIMEOUT_SECONDS

    def __init__(self, server_admin_dsn: str, pool_size: int = 1) -> None:
        self.binary = find_pgbouncer()
        self.server = urlsplit(server_admin_dsn)
        self.pool_size = pool_size
        super().__init__("agentddl-pooler-", "pgbouncer.log")

    @property
    def dsn_template(self) -> str:
        """The pooler's DSN with `{database}` for the database's name."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{{database}}"

    def prepare(self) -> None:
        users = self.root / "users.txt"
        users.write_text('"postgres" ""\n')
        self.own(users)

    def command(self) -> list[str]:
        """The config for this port (it logs to stderr, which is the log file)."""
        config = self.root / "pgbouncer.ini"
        config.write_text(
            "[databases]\n"
            f"* = host={self.server.hostname} port={self.server.port} user=postgres\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.root / 'users.txt'}\n"
            f"pool_mode = transaction\ndefault_pool_size = {self.pool_size}\n"
            "min_pool_size = 0\nreserve_pool_size = 0\n"
            "max_client_conn = 50\nserver_reset_query =\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
            f"pidfile = {self.root / 'pgbouncer.pid'}\n"
        )
        self.own(config)
        return [str(self.binary), str(config)]

    def answers(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
            return True
        return False


@contextlib.contextmanager
def transaction_pooler(server_admin_dsn: str) -> Iterator[str]:
    """A PgBouncer (transaction mode, one server connection per database) in front of the
    server of `server_admin_dsn`, for the block; yields the pooler's DSN template
    `postgresql://postgres@127.0.0.1:<port>/{database}`."""
    with PgBouncer(server_admin_dsn) as pooler:
        yield pooler.dsn_template


def pooled(dsn: str, **options: Any) -> psycopg.Connection[Any]:
    """A client connection through the pooler: autocommit, no server-side prepared
    statements (a transaction-mode pooler hands the next statement to another session)."""
    conn = connect(dsn, autocommit=True, **options)
    conn.prepare_threshold = None
    return conn
