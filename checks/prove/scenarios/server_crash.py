"""Server crash: every process of the database server is killed at once (SIGKILL to the
postmaster and each of its children: what a power loss leaves of the server's memory)
five times while the workers drain runs, and the server is started again each time
(crash recovery from the WAL). Only a server prove started itself can be crashed.

Observed (`faults`): the workers' journal of acknowledged commits against the database
after the last recovery: nothing acknowledged lost, no acknowledged step done twice,
nothing stuck, and a claim from before the first crash refused.
"""

from __future__ import annotations

import time
from typing import Any

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

NAME = "server_crash"
__all__ = ["SCENARIO", "run", "work_drain", "work_hold", "work_stale_write"]

SCENARIO = Scenario(NAME, order=15, guarded=GUARDED, own_server=True)


def run(ctx: ScenarioContext) -> ScenarioResult:
    server = ctx.server
    if server is None:  # the runner never picks this scenario without one
        raise RuntimeError("server_crash needs a server prove started itself")
    recoveries: list[float] = []

    def crash() -> None:
        started = time.monotonic()
        server.crash()
        server.restart()
        recoveries.append(time.monotonic() - started)

    counts, dispatch = drain_through_faults(ctx, crash)
    found: dict[str, Any] = {**counts, "recovery_seconds_max": round(max(recoveries, default=0.0), 2)}
    return ctx.result(found, SCENARIO.guarded, dispatch)
