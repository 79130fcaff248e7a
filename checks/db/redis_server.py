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

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentddl.checks.db.process import LocalServer
from agentddl.generator.errors import AgentDDLError

REDIS_ENV = "AGENTDDL_REDIS"
STARTUP_TIMEOUT_SECONDS = 15.0
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


class EmbeddedRedis(LocalServer):
    """One redis-server process with no persistence, in its own temp dir; SIGTERM stops
    it (there is nothing to save)."""

    what = "redis-server"
    startup_timeout = STARTUP_TIMEOUT_SECONDS

    def __init__(self) -> None:
        self.binary = find_redis_server()
        super().__init__("agentddl-redis-", "redis.log")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        settings = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.root)]
        settings += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", ""]
        return [str(self.binary), *settings]

    def answers(self) -> bool:
        import redis

        client = redis_client(self.url, socket_connect_timeout=1.0)
        try:
            client.ping()
        except redis.RedisError:
            return False
        finally:
            client.close()
        return True
