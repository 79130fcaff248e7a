"""From the workload's timed calls and the watcher's samples: how long each statement
kept the runtime waiting, and the workload's throughput before, during and after.

A call counts as blocked when the watcher saw its session waiting on a lock while it
ran (a table lock, or anything the migrating session holds); its blocked time is the
call's whole latency. It is charged to the statement whose lock it waited for: among
the statements of the transaction that was open when the call was first seen waiting
(up to the one running then), the one that took the strongest lock, the earliest on a
tie. A lock taken early in a transaction is what stalls production for the rest of it.
"""

from __future__ import annotations

import bisect

from agentddl.checks.pg.lockmodes import strength
from agentddl.checks.trace.execute import Timed
from agentddl.checks.trace.types import StatementTrace, Throughput
from agentddl.checks.trace.workload import Call


def charge_blocked(timed: list[Timed], calls: list[Call], waiting: dict[int, list[float]]) -> None:
    """Set blocked_ms on every statement (0 when nothing waited on it)."""
    starts = [t.start for t in timed]
    for item in timed:
        item.trace.blocked_ms = 0.0
    if not timed:
        return
    last_release = max(t.released or t.end for t in timed)
    for call in calls:
        seen = _first_wait(waiting.get(call.pid, []), call.start, call.end)
        if seen is None or seen < starts[0] or seen > last_release:
            continue
        statement = _holder(timed, bisect.bisect_right(starts, seen) - 1)
        statement.blocked_ms = max(statement.blocked_ms or 0.0, (call.end - call.start) * 1000)


def _holder(timed: list[Timed], running: int) -> StatementTrace:
    """The statement of `running`'s transaction (statements released together) that took
    the strongest lock, the earliest of equals; `running` itself when none took one."""
    released = timed[running].released
    same = [t.trace for t in timed[: running + 1] if t.released == released]
    best = max(same, key=lambda s: strength(s.strongest_lock or ""), default=timed[running].trace)
    return best if best.strongest_lock else timed[running].trace


def _first_wait(times: list[float], start: float, end: float) -> float | None:
    index = bisect.bisect_left(times, start)
    return times[index] if index < len(times) and times[index] <= end else None


def throughput(
    calls: list[Call], load_start: float, migration: tuple[float, float], load_end: float, connections: int
) -> Throughput:
    """Calls completed per second in the three windows."""
    begin, finish = migration

    def rate(low: float, high: float) -> float:
        done = sum(1 for c in calls if low <= c.end < high and c.ok)
        return done / (high - low) if high > low else 0.0

    return Throughput(
        before=rate(load_start, begin),
        during=rate(begin, finish),
        after=rate(finish, load_end),
        queries=len(calls),
        connections=connections,
        errors=sum(1 for c in calls if not c.ok),
    )
