"""A second connection that samples, while the migration runs, the locks the migrating
session holds or waits for, and which workload sessions wait on a lock.

Locks of a statement that runs outside a transaction block (CREATE INDEX CONCURRENTLY,
DETACH ... CONCURRENTLY) are gone when it returns, so they can only be seen while it
runs; a lock a statement queues for (and may time out on) is only visible then, too.
Granted locks are kept only while the tracer asks for them (`granted_too`, around bare
statements): inside a long transaction the session holds thousands, read after every
statement on the session itself, and a copy every few milliseconds would grow without end.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.db import connect

SAMPLE_SECONDS = 0.004
SEEN_TIMEOUT_SECONDS = 2.0  # a bare statement waits for the watcher's first sample at most this
LOCKS_SQL = """
SELECT relation::int8, mode, granted FROM pg_locks
WHERE pid = %s AND locktype = 'relation' AND (NOT granted OR %s)
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
# A workload query waiting on a table lock, or on anything the migration holds (a row it
# updates); waits of workload queries on each other's rows are not the migration's doing.
WAITING_SQL = """
SELECT pid FROM pg_stat_activity
WHERE pid = ANY(%s) AND wait_event_type = 'Lock'
  AND (wait_event = 'relation' OR %s = ANY(pg_blocking_pids(pid)))
"""


@dataclass
class Samples:
    """What the watcher saw, with client monotonic times (ascending)."""

    times: list[float] = field(default_factory=list)  # of the samples that saw a lock
    locks: list[list[tuple[int, str, bool]]] = field(default_factory=list)  # oid, mode, granted
    waiting: list[tuple[float, int]] = field(default_factory=list)  # t, workload pid


class LockWatcher:
    """Samples pg_locks of `pid` (the migrating session) and lock waits of `workload_pids`."""

    def __init__(self, dsn: str) -> None:
        self._conn: psycopg.Connection[Any] = connect(dsn)
        self.samples = Samples()
        self.pid: int | None = None
        self.granted_too = False
        self.workload_pids: list[int] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="agentddl-lock-watcher", daemon=True)

    def __enter__(self) -> LockWatcher:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._conn.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            pid = self.pid
            if pid is not None:
                self._sample(pid)
            self._stop.wait(SAMPLE_SECONDS)

    def _sample(self, pid: int) -> None:
        now = time.monotonic()
        try:
            locks = self._conn.execute(LOCKS_SQL, (pid, self.granted_too)).fetchall()
            waits = (
                self._conn.execute(WAITING_SQL, (self.workload_pids, pid)).fetchall()
                if self.workload_pids
                else []
            )
        except psycopg.Error:
            return  # the scratch database is going away; the trace is over
        with self._lock:
            if locks:
                self.samples.times.append(now)
                self.samples.locks.append([(oid, mode, granted) for oid, mode, granted in locks])
            self.samples.waiting.extend((now, wpid) for (wpid,) in waits)

    @contextlib.contextmanager
    def seen_while_running(self, dsn: str, hold: bool) -> Iterator[None]:
        """Around a bare statement that waits for older snapshots before it ends (CREATE
        INDEX, REINDEX, DETACH PARTITION ... CONCURRENTLY): a second session holds a
        snapshot until this watcher has sampled the statement's locks (SEEN_TIMEOUT_SECONDS
        at most), so a statement shorter than a sample, on a loaded machine, is still seen;
        it waits about one sample interval longer. hold=False: nothing."""
        if not hold:
            yield
            return
        start = time.monotonic()
        holder = connect(dsn, autocommit=False)
        holder.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        holder.execute("SELECT 1")  # the snapshot the statement waits for
        done = threading.Event()
        thread = threading.Thread(target=self._release_once_seen, args=(holder, start, done), daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
            holder.close()

    def _release_once_seen(
        self, holder: psycopg.Connection[Any], start: float, done: threading.Event
    ) -> None:
        deadline = start + SEEN_TIMEOUT_SECONDS
        while not done.is_set() and time.monotonic() < deadline:
            with self._lock:
                if self.samples.times and self.samples.times[-1] >= start:
                    break
            done.wait(SAMPLE_SECONDS)
        holder.rollback()

    def locks_between(self, start: float, end: float) -> set[tuple[int, str, bool]]:
        """(oid, mode, granted) seen for the migrating session between two times."""
        with self._lock:
            first = bisect.bisect_left(self.samples.times, start)
            last = bisect.bisect_right(self.samples.times, end)
            return {lock for sample in self.samples.locks[first:last] for lock in sample}

    def waiting_times(self) -> dict[int, list[float]]:
        """Per workload pid, the times it was seen waiting on a lock."""
        found: dict[int, list[float]] = {}
        with self._lock:
            for t, pid in self.samples.waiting:
                found.setdefault(pid, []).append(t)
        return found
