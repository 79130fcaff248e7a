"""2. Crash mid-step: workers SIGKILL themselves at random points of a run's first
attempt (right after the claim, inside a heartbeat's transaction, after a step's writes
but before COMMIT, right after a step's COMMIT). No reaper runs, and no worker calls
expire_leases: the other workers' claim_run must take each run over once its lease runs
out, by time alone, in the claim itself, and resume it from its latest checkpoint;
nothing may stay in progress.

Observed: the run's history in the database (every succeeded run has checkpoints and
events 1..STEPS, no gap, no duplicate; a killed attempt ended 'expired', the run
succeeded on a later attempt), the journal (what each attempt resumed from, and whether
the checkpoint it read back was intact), and whatever is still live when nothing moves.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import TERMINAL
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import (
    ScenarioContext,
    broken_histories,
    errors,
    overlapping_attempts,
)
from agentddl.checks.prove.worker import Task, WorkerContext

NAME = "crash_mid_step"
STEPS = 3
# where a worker dies: right after its claim committed (before any heartbeat: the claim's
# own lease must run out), inside a heartbeat's transaction, after a step's writes before
# their COMMIT, right after a step's COMMIT
CRASH_POINTS = ("after_claim", "during_heartbeat", "before_commit", "after_commit")


def run(ctx: ScenarioContext) -> ScenarioResult:
    runs = ctx.observer.start_runs(
        NAME, ((ctx.rng.choice(ctx.tenants), {"steps": STEPS}) for _ in range(ctx.options.crash_runs))
    )
    # every point, in this order: the first workers surely reach theirs (each dies at its
    # first claim, so none can take the others' runs first); the steps are drawn at random
    points = [CRASH_POINTS[n % len(CRASH_POINTS)] for n in range(ctx.options.crashes)]
    remaining = [(p, 0 if p == "after_claim" else ctx.rng.randint(1, STEPS)) for p in points]

    def next_task(slot: int) -> Task:
        point, step = remaining.pop(0) if remaining else (None, None)
        return ctx.task("drain", crash_at=point, tenant=ctx.tenant_of_slot(slot), crash_step=step)

    dispatch = ctx.dispatch({s: next_task(s) for s in ctx.slots}, ctx.drain_watch(next_task))
    return ctx.result(observe(ctx, len(runs), dispatch.deaths), SCENARIO.guarded, dispatch)


SCENARIO = Scenario(
    NAME,
    order=2,
    guarded={
        "no_crash_happened": "no worker reached its crash point (nothing was proven)",
        "stuck_runs": "runs still in progress when nothing moved any more",
        "lost_runs": "runs that ended without succeeding",
        "not_taken_over": "killed attempts whose run was never taken over by time",
        "broken_history": "succeeded runs whose checkpoints/events are not exactly 1..steps",
        "resumed_wrong": "takeovers that resumed from a checkpoint that was not the latest intact one",
        "overlapping_attempts": "runs with two live attempts at once",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def observe(ctx: ScenarioContext, runs: int, deaths: int) -> dict[str, Any]:
    journal = ctx.journal()
    final = ctx.observer.runs(NAME)
    attempts = ctx.observer.attempts(NAME)
    crashed = [line for line in journal if line["kind"] == "crash"]
    live = sum(1 for r in final if r["status"] not in TERMINAL)
    succeeded = [r for r in final if r["status"] == "succeeded"]
    return {
        "runs": runs,
        "crashes": len(crashed),
        "workers_replaced": deaths,
        "no_crash_happened": int(not crashed),
        "runs_completed": len(succeeded),
        "stuck_runs": live,
        "lost_runs": runs - len(succeeded) - live,
        "expired_attempts": sum(1 for a in attempts if a["status"] == "expired"),
        "not_taken_over": _not_taken_over(attempts),
        "broken_history": broken_histories(ctx, succeeded, STEPS),
        "resumed_wrong": sum(1 for line in journal if line["kind"] == "resumed" and not line["intact"]),
        "max_takeover_seconds": _max_takeover(journal),
        "overlapping_attempts": overlapping_attempts(attempts),
        "errors": errors(journal),
    }


def _not_taken_over(attempts: list[dict[str, Any]]) -> int:
    """Runs whose first attempt did not end well (killed) and that no later attempt finished."""
    by_run: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for attempt in attempts:
        by_run[attempt["run_id"]].append(attempt)
    return sum(
        1
        for history in by_run.values()
        if history[0]["status"] != "succeeded" and not any(a["status"] == "succeeded" for a in history[1:])
    )


def _max_takeover(journal: list[dict[str, Any]]) -> float:
    """The longest a killed worker's run waited for its next claim (the lease, by time)."""
    worst = 0.0
    last_claim_by_slot: dict[int, str] = {}
    waiting: dict[str, float] = {}
    for line in journal:
        if line["kind"] == "claimed":
            if line["run"] in waiting:
                worst = max(worst, line["at"] - waiting.pop(line["run"]))
            last_claim_by_slot[line["slot"]] = line["run"]
        elif line["kind"] == "crash" and line["slot"] in last_claim_by_slot:
            waiting[last_claim_by_slot[line["slot"]]] = line["at"]
    return round(worst, 2)


def work_drain(w: WorkerContext, tenant: Any, crash_step: int | None) -> dict[str, int]:
    return steps.drain(w, tenant, STEPS, crash_step=crash_step)
