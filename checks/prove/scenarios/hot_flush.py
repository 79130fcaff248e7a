"""Hot flush: workers work runs step by step with the hot projection (progress and
heartbeats to Redis; checkpoints and events, the durable lease renewed on the module's
cadence, in PostgreSQL) while Redis loses everything twice (FLUSHALL and SCRIPT FLUSH on a
throwaway server, as a restart without persistence would; on a given server, the runs'
keys only). No durable state may be lost, no holder may give its run up for it, and every
run still held after the loss must have its projection written again by its holder
within a step. The runs outlast their lease, so a durable lease renewed too rarely is
lost by a healthy holder.

Observed: each run's history in PostgreSQL (checkpoints and events exactly 1..steps), the
holders' journal (lost leases), and the projections of the runs running at each loss, read
once their holders had a step's time to beat.
"""

from __future__ import annotations

import time
from typing import Any

import agentddl.checks.prove.hot as hot
from agentddl.checks.prove.observe import TERMINAL
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, broken_histories, errors
from agentddl.checks.prove.worker import Task, WorkerContext

NAME = "hot_flush"
STEPS = 6
LEASES = 4  # the scenario's lease, in --lease-seconds (renewed every third of it)
LOSSES = 2
SLACK_SECONDS = 0.2


def run(ctx: ScenarioContext) -> ScenarioResult:
    lease = LEASES * ctx.options.lease_seconds
    step_seconds = lease / 5  # STEPS steps outlast the lease
    count = max(len(ctx.slots), ctx.options.runs // 100)
    runs = ctx.observer.start_runs(NAME, ((ctx.tenant_of_slot(n), {}) for n in range(count)))

    def drainer(slot: int) -> Task:
        return ctx.task("drain", lease=lease, tenant=ctx.tenant_of_slot(slot), step_seconds=step_seconds)

    losses = _Losses(ctx, STEPS * step_seconds / (LOSSES + 1), step_seconds + SLACK_SECONDS)
    watch = ctx.drain_watch(drainer)
    done = watch.finished
    watch.finished = lambda: losses.tick() or bool(done and done())
    # a run's version moves only at its claim and end: its steps are the progress here
    watch.progress = lambda: (ctx.observer.progress(NAME), len(ctx.observer.child_rows("checkpoints", NAME)))
    dispatch = ctx.dispatch({s: drainer(s) for s in ctx.slots}, watch)
    counts = _observe(ctx, len(runs), losses)
    ctx.hot.forget([r["run_id"] for r in runs])
    return ctx.result(counts, SCENARIO.guarded, dispatch)


SCENARIO = Scenario(
    NAME,
    order=13,
    hot=True,
    guarded={
        "loss_untested": "no run was running when Redis lost everything (nothing was proven)",
        "lost_runs": "runs that ended without succeeding",
        "stuck_runs": "runs still in progress when nothing moved any more",
        "broken_history": "succeeded runs whose checkpoints/events are not exactly 1..steps",
        "leases_lost": "healthy holders that lost their run (Redis loss taken for a lost lease, "
        "a lapsed lease)",
        "leases_lapsed": "held runs whose durable lease ran out while their holder worked "
        "(renewed too rarely)",
        "not_rebuilt": "runs still held a step after the loss whose projection was not written again",
        "errors": "named queries or Redis calls that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


class _Losses:
    """Redis loses everything every `period` seconds (LOSSES times); `window` seconds after
    each loss, every run that was running then and still is under the same claim must have
    its projection back."""

    def __init__(self, ctx: ScenarioContext, period: float, window: float) -> None:
        self.ctx, self.period, self.window = ctx, period, window
        self.started = time.monotonic()
        self.losses: list[tuple[float, dict[str, int]]] = []  # when, running run -> fencing token
        self.checked, self.rebuilt, self.not_rebuilt = 0, 0, 0
        self.running_at_loss = 0
        self.lapsed: set[str] = set()

    def tick(self) -> bool:
        """Check what is due, then lose everything if that is due (a window is shorter
        than a period: each loss is checked before the next)."""
        now = time.monotonic()
        self._sample_leases()
        for n, (at, running) in enumerate(self.losses):
            if running and now >= at + self.window:
                self._check(running)
                self.losses[n] = (at, {})
        if len(self.losses) < LOSSES and now >= self.started + self.period * (len(self.losses) + 1):
            running = {str(r["run_id"]): r["fencing_token"] for r in self._runs() if r["status"] == "running"}
            self.ctx.hot.lose_everything(list(running))
            self.losses.append((now, running))
            self.running_at_loss += len(running)
        return False

    def _sample_leases(self) -> None:
        """Running live rows whose durable lease has run out: their holder is working (no
        worker dies here), so it renewed too rarely."""
        self.lapsed |= {str(q["run_id"]) for q in self.ctx.observer.lapsed_leases(NAME)}

    def _runs(self) -> list[dict[str, Any]]:
        return self.ctx.observer.runs(NAME)

    def _check(self, running: dict[str, int]) -> None:
        now = {str(r["run_id"]): r for r in self._runs()}
        for run_id, token in running.items():
            row = now[run_id]
            if row["status"] != "running" or row["fencing_token"] != token:
                continue  # finished or moved on since: nothing to show
            self.checked += 1
            if self.ctx.hot.read(run_id).get("fencing_token") == str(token):
                self.rebuilt += 1
            else:
                self.not_rebuilt += 1


def _observe(ctx: ScenarioContext, runs: int, losses: _Losses) -> dict[str, Any]:
    journal = ctx.journal()
    final = ctx.observer.runs(NAME)
    live = sum(1 for r in final if r["status"] not in TERMINAL)
    succeeded = [r for r in final if r["status"] == "succeeded"]
    return {
        "runs": runs,
        "losses": len(losses.losses),
        "running_at_loss": losses.running_at_loss,
        "loss_untested": int(losses.checked == 0),
        "projections_checked": losses.checked,
        "projections_rebuilt": losses.rebuilt,
        "not_rebuilt": losses.not_rebuilt,
        "runs_completed": len(succeeded),
        "stuck_runs": live,
        "lost_runs": runs - len(succeeded) - live,
        "broken_history": broken_histories(ctx, succeeded, STEPS),
        "leases_lost": sum(1 for line in journal if line["kind"] == "lease_lost"),
        "leases_lapsed": len(losses.lapsed),
        "errors": errors(journal),
    }


def work_drain(w: WorkerContext, tenant: Any, step_seconds: float) -> dict[str, int]:
    return hot.drain(w, tenant, STEPS, step_seconds)
