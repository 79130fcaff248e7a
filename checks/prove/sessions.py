"""Every prove connection (the coordinator's, the sampler's, each worker process's) is
opened by `db.connect`, under an application_name that says which it is, so a DBA
watching pg_stat_activity during a prove run sees `agentddl-prove-coordinator`,
`agentddl-prove-sampler`, `agentddl-prove-3`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from agentddl.checks.db.connect import DatabaseError, connect

RECONNECT_SECONDS = 60.0  # a crashed server is back (recovered, or a replica promoted) well within this


def open_session(dsn: str, who: str, **options: Any) -> psycopg.Connection[Any]:
    """db.connect(dsn, **options) as `agentddl-prove-<who>`."""
    return connect(_named(dsn, f"agentddl-prove-{who}"), **options)


def open_when_up(
    dsn: str,
    who: str,
    seconds: float = RECONNECT_SECONDS,
    give_up: Callable[[], bool] = lambda: False,
    **options: Any,
) -> psycopg.Connection[Any]:
    """open_session, tried again while the server is down or still recovering (a crash,
    a restart, a failover), for up to `seconds` or until `give_up()`; then the last
    DatabaseError."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return open_session(dsn, who, **options)
        except DatabaseError:
            if time.monotonic() >= deadline or give_up():
                raise
            time.sleep(0.05)


def _named(dsn: str, name: str) -> str:
    try:
        return make_conninfo(dsn, application_name=name)
    except psycopg.ProgrammingError:  # not a DSN: connect() says so, in its words
        return dsn
