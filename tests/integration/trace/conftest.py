"""Trace tests run on PostgreSQL 15 and 18 (the stats machinery differs from 15 on, and 18
is the newest), or on the server at $AGENTDDL_DSN. $AGENTDDL_TEST_PG_VERSIONS narrows them
to the majors it names among 15 and 18 (else to what it names)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest

from agentddl.checks.harness import PostgresServer

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


@pytest.fixture(scope="session", params=_majors(), ids=lambda m: f"pg{m}" if m else "dsn")
def trace_server(request: pytest.FixtureRequest, pg_servers: object) -> PostgresServer:
    server: PostgresServer = pg_servers.get(request.param)  # type: ignore[attr-defined]
    return server


@dataclass(frozen=True)
class Blocker:
    """A session that opens a transaction `start` seconds in, runs `sql` in it (keeping its
    locks) and commits at `end` seconds."""

    start: float
    end: float
    sql: str


@contextlib.contextmanager
def holding(dsn: str, blockers: list[Blocker]) -> Iterator[None]:
    """Run the block while the blockers hold their locks. Those starting at 0 have their
    locks before the block begins; the others start in their own threads."""
    began = time.monotonic()
    threads = []
    for blocker in blockers:
        conn = psycopg.connect(dsn)
        if blocker.start == 0:
            conn.execute(blocker.sql.encode())
        threads.append(threading.Thread(target=_hold, args=(conn, blocker, began), daemon=True))
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for thread in threads:
            thread.join()


def _hold(conn: psycopg.Connection[object], blocker: Blocker, began: float) -> None:
    with conn:
        if blocker.start > 0:
            time.sleep(max(0.0, began + blocker.start - time.monotonic()))
            conn.execute(blocker.sql.encode())
        time.sleep(max(0.0, began + blocker.end - time.monotonic()))
