"""The lock watcher keeps what the tracer needs and no more: inside a long transaction the
migrating session holds thousands of locks, and a copy of them every few milliseconds
made a 1,200-statement migration take minutes and gigabytes. The test waits on the
watcher's own samples (so many taken, one taken since asking), not on fixed delays: a
loaded machine samples less often, not differently."""

from __future__ import annotations

import time
from collections.abc import Callable

import psycopg

from agentddl.checks.db import PostgresServer
from agentddl.checks.trace.watch import LockWatcher

SAMPLES = 20  # taken while granted locks are not asked for


class CountingWatcher(LockWatcher):
    """The watcher, counting the samples it has taken."""

    def __init__(self, dsn: str) -> None:
        super().__init__(dsn)
        self.sampled = 0

    def _sample(self, pid: int) -> None:
        super()._sample(pid)
        self.sampled += 1


def wait_for(what: str, done: Callable[[], object]) -> None:
    """Until done() holds (a minute at most: a watcher that stopped sampling fails here)."""
    deadline = time.monotonic() + 60
    while not done():
        assert time.monotonic() < deadline, f"the watcher never {what}"
        time.sleep(0.005)


def test_granted_locks_are_kept_only_while_asked_for(trace_server: PostgresServer) -> None:
    with trace_server.scratch_database() as dsn, psycopg.connect(dsn) as holder:
        for number in range(50):  # an open transaction holding 50 tables' locks
            holder.execute(f"CREATE TABLE t{number} (id int)")
        with CountingWatcher(dsn) as watcher:
            watcher.pid = holder.info.backend_pid
            wait_for(f"took {SAMPLES} samples", lambda: watcher.sampled >= SAMPLES)
            kept_meanwhile = sum(len(sample) for sample in watcher.samples.locks)
            asked_from = time.monotonic()
            watcher.granted_too = True
            wait_for("kept a sample once asked", lambda: watcher.locks_between(asked_from, time.monotonic()))
            seen = watcher.locks_between(asked_from, time.monotonic())
        holder.rollback()
    assert kept_meanwhile == 0
    assert len({oid for oid, _mode, granted in seen if granted}) >= 50
