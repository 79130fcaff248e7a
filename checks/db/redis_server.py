"""Redis for the hot projection (profile `hot_state.store: redis`): the server given by
URL, or a throwaway `redis-server` started here (Debian's package: `apt-get install
redis-server`; tests/setup/install_postgres.sh installs it). fakeredis is no substitute:
the projection's guarantees are Lua scripts and key TTLs, which only a real server runs.

The embedded server listens on 127.0.0.1 on a free port, persists nothing (no RDB, no
AOF), runs as the unprivileged server user when we are root (as PostgreSQL does), and is
stopped when the block ends or the interpreter exits. Only this module opens Redis
connections (redis-py, the optional extra `agentddl[redis]`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentddl.checks.db.embedded import _free_port, _tail, scratch_parent, server_user
from agentddl.generator.errors import AgentDDLError

REDIS_ENV = "AGENTDDL_REDIS"
STARTUP_TIMEOUT_SECONDS = 15.0
PORT_ATTEMPTS = 3
INSTALL_HINT = "apt-get install redis-server (tests/setup/install_postgres.sh does), or pass --redis URL"


@dataclass(frozen=True)
class RedisServer:
    """A reachable Redis: its URL, and whether it is ours to flush (a throwaway server)."""

    url: str
    embedded: bool


def redis_client(url: str, **options: Any) -> Any:
    """A redis-py client for `url` (redis://host:port/db): the one way agentddl opens a
    Redis connection. Fails with how to install redis-py when it is missing."""
    try:
        import redis
    except ImportError:
        raise AgentDDLError(
            "hot_state.store: redis needs the redis package: pip install 'agentddl[redis]'"
        ) from None
    return redis.Redis.from_url(url, socket_timeout=options.pop("socket_timeout", 5.0), **options)


def ping(url: str) -> None:
    """Raise AgentDDLError in one line when `url` does not answer a PING."""
    import redis

    client = redis_client(url, socket_connect_timeout=2.0)
    try:
        client.ping()
    except redis.RedisError as error:
        raise AgentDDLError(f"Redis at {url} does not answer: {error}") from None
    finally:
        client.close()


@contextlib.contextmanager
def open_redis(url: str | None = None) -> Iterator[RedisServer]:
    """The Redis at `url` (never stopped nor flushed), else a throwaway local one."""
    if url:
        ping(url)
        yield RedisServer(url, embedded=False)
        return
    server = EmbeddedRedis()
    server.start()
    try:
        yield RedisServer(server.url, embedded=True)
    finally:
        server.stop()


def find_redis_server() -> Path:
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None
    )
    if found is None:
        raise AgentDDLError(f"no redis-server found for hot_state.store: redis: {INSTALL_HINT}")
    return Path(found)


class EmbeddedRedis:
    """One redis-server process with no persistence, in its own temp dir."""

    def __init__(self) -> None:
        self.binary = find_redis_server()
        self.user = server_user()
        self.root = Path(tempfile.mkdtemp(prefix="agentddl-redis-", dir=scratch_parent()))
        self.log_path = self.root / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _spawn(self) -> subprocess.Popen[bytes]:
        self.port = _free_port()
        settings = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.root)]
        settings += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", ""]
        command = [str(self.binary), *settings]
        if threading.current_thread() is threading.main_thread() and shutil.which("setpriv"):
            command = ["setpriv", "--pdeathsig", "TERM", "--", *command]
        user = self.user
        with self.log_path.open("ab") as log:
            return subprocess.Popen(
                command,
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                user=user.pw_uid if user else None,
                group=user.pw_gid if user else None,
                extra_groups=[] if user else None,
            )

    def _wait_ready(self, process: subprocess.Popen[bytes]) -> bool:
        """True once it answers PING; False if it exited (e.g. lost the port race)."""
        import redis

        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        client = redis_client(self.url, socket_connect_timeout=1.0)
        try:
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    return False
                try:
                    client.ping()
                    return True
                except redis.RedisError:
                    time.sleep(0.02)
        finally:
            client.close()
        raise AgentDDLError(
            f"redis-server did not answer within {STARTUP_TIMEOUT_SECONDS:.0f} s; "
            f"log:\n{_tail(self.log_path)}"
        )

    def start(self) -> None:
        try:
            for _ in range(PORT_ATTEMPTS):
                self.process = self._spawn()
                if self._wait_ready(self.process):
                    _running.add(self)
                    return
                if "Address already in use" not in _tail(self.log_path):
                    break
            raise AgentDDLError(f"redis-server exited during startup; log:\n{_tail(self.log_path)}")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM (nothing to save), then remove the temp dir."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _running.discard(self)
        shutil.rmtree(self.root, ignore_errors=True)


_running: set[EmbeddedRedis] = set()


@atexit.register
def _stop_all() -> None:
    """No orphan redis-server after the interpreter exits."""
    for server in list(_running):
        server.stop()
