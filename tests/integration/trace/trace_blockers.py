"""Sessions that hold locks alongside a traced migration (so lock_timeout fires, or a
CONCURRENTLY statement has to wait long enough for its locks to be seen)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg


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
