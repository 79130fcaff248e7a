"""Waits are charged to the statement whose lock was waited for; throughput per window."""

from __future__ import annotations

from agentddl.checks.trace.blocking import charge_blocked, throughput
from agentddl.checks.trace.execute import Timed
from agentddl.checks.trace.types import StatementTrace
from agentddl.checks.trace.workload import Call


def timed(line: int, start: float, end: float, released: float, lock: str | None) -> Timed:
    trace = StatementTrace(file="m.sql", line=line, sql="...", in_transaction=True, strongest_lock=lock)
    return Timed(trace, start, end, released)


def test_a_wait_during_a_later_statement_is_charged_to_the_lock_taker() -> None:
    # BEGIN; CREATE INDEX (ShareLock, 10..11); SELECT pg_sleep (11..20); COMMIT at 20
    # then an autocommit statement 21..22 that takes no lock.
    statements = [timed(1, 10, 11, 20, "ShareLock"), timed(2, 11, 20, 20, None), timed(3, 21, 22, 22, None)]
    calls = [
        Call(pid=7, name="append_event", start=12.0, end=20.0, ok=True),  # waited 8 s
        Call(pid=8, name="get_run", start=13.0, end=13.001, ok=True),  # never seen waiting
        Call(pid=7, name="heartbeat", start=30.0, end=31.0, ok=True),  # after the migration
    ]
    waiting = {7: [12.5, 15.0, 30.5]}
    charge_blocked(statements, calls, waiting)
    assert [s.trace.blocked_ms for s in statements] == [8000.0, 0.0, 0.0]


def test_without_a_lock_taker_the_running_statement_is_charged() -> None:
    statements = [timed(1, 0, 5, 5, None)]
    charge_blocked(statements, [Call(1, "q", 1.0, 3.0, True)], {1: [2.0]})
    assert statements[0].trace.blocked_ms == 2000.0


def test_throughput_counts_successful_calls_per_window() -> None:
    calls = [Call(1, "q", t, t + 0.1, True) for t in (0.0, 0.5, 1.2, 2.5, 2.6)] + [
        Call(1, "q", 2.7, 2.8, False)
    ]
    rate = throughput(calls, load_start=0.0, migration=(1.0, 2.0), load_end=3.0, connections=1)
    assert (rate.before, rate.during, rate.after) == (2.0, 1.0, 2.0)
    assert (rate.queries, rate.errors) == (6, 1)
