"""Hot expiry: every worker claims a run, publishes its projection, heartbeats to Redis,
and is SIGKILLed. Nobody cleans up after it: the projection must carry its TTLs from the
first write (set in the same server-side step as the write), the `:lease` key must lapse
one lease after the last heartbeat and the `:state` hash one running TTL after it. Then
the other workers' polls must take every killed run over in PostgreSQL, by time alone
(the durable lease was renewed only on the module's cadence), and finish it.

Observed: the TTLs of the killed runs' keys right after the kills, whether each key is
gone once its TTL has passed (plus a second of slack), and the runs' final state.
"""

from __future__ import annotations

import time
from typing import Any

import agentddl.checks.prove.hot as hot
import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import TERMINAL
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Task, WorkerContext

NAME = "hot_expiry"
STEPS = 2
SLACK_SECONDS = 1.0  # Redis expires keys lazily and by sampling: allow it a moment


def run(ctx: ScenarioContext) -> ScenarioResult:
    runs = ctx.observer.start_runs(NAME, ((ctx.tenant_of_slot(s), {}) for s in ctx.slots))
    killed = ctx.dispatch(
        {s: ctx.task("hold_and_die", crash_at="hot_killed", tenant=ctx.tenant_of_slot(s)) for s in ctx.slots}
    )
    died_at = time.monotonic()
    held = [line for line in ctx.journal() if line["kind"] == "hot_held"]
    counts = _expiry(ctx, [line["run"] for line in held], died_at)

    def drainer(slot: int) -> Task:
        return ctx.task("drain", tenant=ctx.tenant_of_slot(slot))

    drained = ctx.dispatch({s: drainer(s) for s in ctx.slots}, ctx.drain_watch(drainer))
    counts |= _takeover(ctx, len(runs), {line["run"] for line in held})
    counts["worker_failures"] = len(killed.failures) + len(drained.failures)
    counts["crashes"] = killed.deaths
    counts["no_crash_happened"] = int(not held or not killed.deaths)
    ctx.hot.forget([r["run_id"] for r in runs])
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=12,
    hot=True,
    guarded={
        "no_crash_happened": "no worker died holding a projection (nothing was proven)",
        "keys_without_ttl": "keys of a killed worker's run that had no TTL (would never expire)",
        "hot_leases_outlived": "lease keys still there a lease after the holder's last heartbeat",
        "hot_states_outlived": "projections still there a running TTL after the holder's last write",
        "not_taken_over": "killed runs never taken over and finished (by time, in PostgreSQL)",
        "stuck_runs": "runs still in progress when nothing moved any more",
        "lost_runs": "runs that ended without succeeding",
        "errors": "named queries or Redis calls that raised",
        "worker_failures": "workers that failed",
    },
)


def _expiry(ctx: ScenarioContext, run_ids: list[str], died_at: float) -> dict[str, Any]:
    keys = [ctx.hot.keys(run_id) for run_id in run_ids]
    ttls = [ctx.hot.ttl(key) for state, lease, _ in keys for key in (state, lease)]
    lease, running = ctx.hot.setup.lease_seconds, ctx.hot.setup.running_ttl
    hot.wait_until(died_at + lease + SLACK_SECONDS)
    leases_left = sum(1 for _, key, _ in keys if ctx.hot.ttl(key) != -2)
    hot.wait_until(died_at + max(lease, running) + SLACK_SECONDS)
    states_left = sum(1 for key, _, _ in keys if ctx.hot.ttl(key) != -2)
    return {
        "projections_killed": len(keys),
        "keys_seen": sum(1 for ttl in ttls if ttl != -2),
        "keys_without_ttl": sum(1 for ttl in ttls if ttl == -1),
        "hot_leases_outlived": leases_left,
        "hot_states_outlived": states_left,
    }


def _takeover(ctx: ScenarioContext, runs: int, killed: set[str]) -> dict[str, Any]:
    final = ctx.observer.runs(NAME)
    live = sum(1 for r in final if r["status"] not in TERMINAL)
    succeeded = {str(r["run_id"]) for r in final if r["status"] == "succeeded"}
    retaken = {
        str(a["run_id"])
        for a in ctx.observer.attempts(NAME)
        if a["attempt_no"] > 1 and a["status"] == "succeeded"
    }
    return {
        "runs": runs,
        "runs_completed": len(succeeded),
        "stuck_runs": live,
        "lost_runs": runs - len(succeeded) - live,
        "not_taken_over": len(killed - retaken),
        "errors": errors(ctx.journal()),
    }


def work_hold_and_die(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim a run, publish, heartbeat, and die (SIGKILL) holding it."""
    claim = steps.claim_within(w, tenant, 10.0)
    if claim is None:
        return {"claimed": False}
    holder = hot.hold(w, claim)
    outcome = holder.progress("step1", 10)
    for _ in range(2):
        outcome = holder.beat() if outcome == "ok" else outcome
    w.journal.write("hot_held", run=str(claim["run_id"]), token=claim["fencing_token"], outcome=outcome)
    w.armed = True
    w.maybe_crash("hot_killed")
    return {"claimed": True}


def work_drain(w: WorkerContext, tenant: Any) -> dict[str, int]:
    return hot.drain(w, tenant, STEPS, step_seconds=0.05)
