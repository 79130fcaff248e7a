"""Failover: a streaming replica of the server prove started (a second local server,
synchronous by default: `--replication async` for the other), the workers and the
coordinator connected through a multi-host connection string that takes whichever host
accepts writes (`target_session_attrs=read-write`). While the workers drain runs the
primary is killed (every process at once, never started again) and the replica promoted;
the workers reconnect to it and go on.

Just before the kill the primary stops sending WAL for `PAUSE_SECONDS` (its walsender
stopped with SIGSTOP): a replica that many milliseconds behind, deterministically, on one
machine where streaming is otherwise near instant. A synchronous primary acknowledges no
commit meanwhile (each waits for the replica's flush, then the kill cuts it off): nothing
acknowledged is lost. An asynchronous one goes on acknowledging: what it acknowledged in
that time is gone after the promotion, and the scenario reports it broken.

Observed (`faults`): the workers' journal of acknowledged commits against the promoted
replica: nothing acknowledged lost, no acknowledged step done twice, nothing stuck, and a
claim from before the failover refused. Reported beside: how far the replica was behind
at the kill (WAL bytes, seconds since the commit it replayed last) and how long the
promotion took. Afterwards the replica is stopped and the old primary started again for
the scenarios after this one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agentddl.checks.db.embedded import EmbeddedCluster
from agentddl.checks.db.replica import EmbeddedReplica
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext
from agentddl.checks.prove.scenarios.faults import (
    GUARDED,
    drain_through_faults,
    work_drain,
    work_hold,
    work_stale_write,
)

NAME = "failover"
__all__ = ["SCENARIO", "run", "work_drain", "work_hold", "work_stale_write"]
FAILOVERS = 1
PAUSE_SECONDS = 0.3  # the primary sends no WAL for this long before the kill: the replica's lag
# runs per worker in the wave the failover strikes: seconds of work, so the workers are
# mid-run (committing) through the pause and the kill, however fast the machine
WAVE_PER_WORKER = 40

SCENARIO = Scenario(NAME, order=17, guarded=GUARDED, own_server=True)


def run(ctx: ScenarioContext) -> ScenarioResult:
    primary, direct = ctx.server, ctx.pool.setup
    if not isinstance(primary, EmbeddedCluster) or direct is None:  # the runner never picks it so
        raise RuntimeError("failover needs the embedded server prove started, and configured workers")
    synchronous = ctx.options.replication == "sync"
    measured: dict[str, Any] = {"synchronous": synchronous}
    try:
        with _replicated(ctx, primary, synchronous) as replica:
            multi_host = _multi_host(direct.dsn, primary.port, replica.port)
            ctx.pool.configure(replace(direct, dsn=multi_host))
            ctx.observer.dsn = multi_host

            def failover() -> None:
                measured.update(_fail_over(primary, replica))

            wave = max(WAVE_PER_WORKER * len(ctx.slots), ctx.options.runs // 5)
            counts, dispatch = drain_through_faults(ctx, failover, FAILOVERS, wave)
    finally:  # the old primary is running again by now
        ctx.pool.configure(direct)
    return ctx.result({**counts, **measured}, SCENARIO.guarded, dispatch)


@contextlib.contextmanager
def _replicated(
    ctx: ScenarioContext, primary: EmbeddedCluster, synchronous: bool
) -> Iterator[EmbeddedReplica]:
    """A replica of `primary` for the block; afterwards it is stopped, the old primary
    runs again without it, and the coordinator is back on the old primary."""
    direct_dsn = ctx.observer.dsn
    replica = EmbeddedReplica(primary, synchronous)
    try:
        replica.start()
        yield replica
    finally:
        replica.stop()
        if primary.process is None or primary.process.poll() is not None:
            primary.restart()
            replica.release_primary()
        ctx.observer.dsn = direct_dsn
        ctx.observer.conn.close()
        ctx.observer.reconnect()


def _fail_over(primary: EmbeddedCluster, replica: EmbeddedReplica) -> dict[str, Any]:
    """The primary stops sending WAL, is killed `PAUSE_SECONDS` later, and the replica is
    promoted: how far behind it was, and how long the promotion took."""
    walsender = replica.walsender_pid()
    os.kill(walsender, signal.SIGSTOP)
    time.sleep(PAUSE_SECONDS)
    lag = replica.lag()
    primary.crash()  # SIGKILL reaches the stopped walsender too: what it held back is gone
    started = time.monotonic()
    replica.promote()
    return {
        "lag_bytes_at_failover": lag["bytes"],
        "lag_seconds_at_failover": lag["seconds"] if lag["seconds"] is not None else -1.0,
        "promotion_seconds": round(time.monotonic() - started, 3),
    }


def _multi_host(dsn: str, primary_port: int, replica_port: int) -> str:
    """`dsn` with both servers as its hosts: libpq takes the first that accepts writes."""
    params = conninfo_to_dict(dsn)
    params.update(
        host="127.0.0.1,127.0.0.1",
        port=f"{primary_port},{replica_port}",
        target_session_attrs="read-write",
    )
    return make_conninfo("", **params)
