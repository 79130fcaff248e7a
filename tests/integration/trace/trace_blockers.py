"""Sessions that hold locks alongside a traced migration (so lock_timeout fires, or a
CONCURRENTLY statement has to wait long enough for its locks to be seen).

A session lets go on an event, not at a time: a timer's verdict would depend on how fast
the machine gets the migration to the statement that has to wait. `until` is "end" (the
traced block is over: a statement that must time out waiting on it cannot get its lock
first, however slowly it runs) or "waited" (a session has waited on this one's locks,
and WAIT_SEEN_SECONDS have passed since it was seen waiting, for the lock watcher to
sample the wait; or the block is over, if nothing ever waited).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg

UNTIL = ("end", "waited")
WAIT_SEEN_SECONDS = 0.3  # some 75 of the watcher's 4 ms samples
HANG_GUARD_SECONDS = 60.0  # a wait never seen: let go anyway (the expectations then fail)
WAITED_ON_ME = """SELECT EXISTS (
    SELECT FROM pg_catalog.pg_locks WHERE NOT granted
      AND pg_catalog.pg_backend_pid() = ANY (pg_catalog.pg_blocking_pids(pid)))"""


@dataclass(frozen=True)
class Blocker:
    """A session that opens a transaction `start` seconds in (0: before the block), runs
    `sql` in it (keeping its locks) and commits `until` "end" or "waited" (above)."""

    start: float
    until: str
    sql: str

    def __post_init__(self) -> None:
        if self.until not in UNTIL:
            raise ValueError(f"until: one of {UNTIL}, not {self.until!r}")


@contextlib.contextmanager
def holding(dsn: str, blockers: list[Blocker]) -> Iterator[None]:
    """Run the block while the blockers hold their locks. Those starting at 0 have their
    locks before the block begins; the others start in their own threads."""
    began = time.monotonic()
    over = threading.Event()
    threads = []
    for blocker in blockers:
        conn = psycopg.connect(dsn)
        if blocker.start == 0:
            conn.execute(blocker.sql.encode())
        threads.append(threading.Thread(target=_hold, args=(conn, blocker, began, over), daemon=True))
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        over.set()
        for thread in threads:
            thread.join()


def _hold(conn: psycopg.Connection[object], blocker: Blocker, began: float, over: threading.Event) -> None:
    with conn:
        if blocker.start > 0:
            time.sleep(max(0.0, began + blocker.start - time.monotonic()))
            conn.execute(blocker.sql.encode())
        if blocker.until == "end":
            over.wait()
            return
        deadline = time.monotonic() + HANG_GUARD_SECONDS
        while not over.is_set() and time.monotonic() < deadline:
            row = conn.execute(WAITED_ON_ME).fetchone()
            if row is not None and row[0]:
                over.wait(WAIT_SEEN_SECONDS)
                return
            over.wait(0.005)
