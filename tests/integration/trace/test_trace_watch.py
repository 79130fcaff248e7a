"""The lock watcher keeps what the tracer needs and no more: inside a long transaction the
migrating session holds thousands of locks, and a copy of them every few milliseconds
made a 1,200-statement migration take minutes and gigabytes."""

from __future__ import annotations

import time

import psycopg

from agentddl.checks.db import PostgresServer
from agentddl.checks.trace.watch import LockWatcher


def test_granted_locks_are_kept_only_while_asked_for(trace_server: PostgresServer) -> None:
    with trace_server.scratch_database() as dsn, psycopg.connect(dsn) as holder:
        for number in range(50):  # an open transaction holding 50 tables' locks
            holder.execute(f"CREATE TABLE t{number} (id int)")
        with LockWatcher(dsn) as watcher:
            watcher.pid = holder.info.backend_pid
            time.sleep(0.2)
            kept_meanwhile = sum(len(sample) for sample in watcher.samples.locks)
            watcher.granted_too = True
            asked_from = time.monotonic()
            time.sleep(0.1)
            seen = watcher.locks_between(asked_from, time.monotonic())
        holder.rollback()
    assert kept_meanwhile == 0
    assert len({oid for oid, _mode, granted in seen if granted}) >= 50
