"""A real PgBouncer in transaction mode in front of a test server, with one server
connection per database: every client's transaction runs on the same server session,
one after another, the way a busy production pooler hands sessions around.

Debian's pgbouncer package (tests/setup/install_postgres.sh installs it) runs as the
unprivileged server user when the tests run as root, like the embedded PostgreSQL.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

from agentddl.checks.db.embedded import server_user

BINARY = "/usr/sbin/pgbouncer"
INSTALL_HINT = "run tests/setup/install_postgres.sh (make test does): it installs Debian's pgbouncer"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _config(folder: Path, server: str, port: int) -> Path:
    target = urlsplit(server)
    (folder / "users.txt").write_text('"postgres" ""\n')
    config = folder / "pgbouncer.ini"
    config.write_text(
        "[databases]\n"
        f"* = host={target.hostname} port={target.port} user=postgres\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 1\nmin_pool_size = 0\nreserve_pool_size = 0\n"
        "max_client_conn = 50\nserver_reset_query =\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {folder / 'pgbouncer.log'}\npidfile = {folder / 'pgbouncer.pid'}\n"
    )
    return config


@contextlib.contextmanager
def transaction_pooler(server_admin_dsn: str) -> Iterator[str]:
    """A PgBouncer (transaction mode, one server connection per database) in front of the
    server of `server_admin_dsn`; yields the pooler's DSN template
    `postgresql://postgres@127.0.0.1:<port>/{database}`."""
    if not Path(BINARY).is_file():
        raise AssertionError(f"{BINARY} is missing: {INSTALL_HINT}")
    folder = Path(tempfile.mkdtemp(prefix="agentddl-pgbouncer-"))
    user = server_user()
    port = _free_port()
    config = _config(folder, server_admin_dsn, port)
    if user is not None:
        for path in (folder, *folder.iterdir()):
            shutil.chown(path, user.pw_uid, user.pw_gid)
    process = subprocess.Popen(
        [BINARY, str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        user=user.pw_uid if user else None,
        group=user.pw_gid if user else None,
        extra_groups=[] if user else None,
        start_new_session=True,
    )
    try:
        _wait_ready(process, port, folder)
        yield f"postgresql://postgres@127.0.0.1:{port}/{{database}}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_ready(process: subprocess.Popen[bytes], port: int, folder: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = folder / "pgbouncer.log"
            said = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise AssertionError(f"pgbouncer exited at start:\n{said}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise AssertionError("pgbouncer did not listen within 15 s")


def pooled(dsn: str, **kwargs: object) -> psycopg.Connection[object]:
    """A client connection through the pooler: autocommit, no server-side prepared
    statements (a transaction-mode pooler hands the next statement to another session)."""
    conn: psycopg.Connection[object] = psycopg.connect(dsn, autocommit=True, **kwargs)  # type: ignore[arg-type]
    conn.prepare_threshold = None
    return conn
