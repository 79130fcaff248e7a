"""What the fault scenarios (server_crash, pooler_restart) share: workers drain waves of
runs while a thread injects a fault before each wave is done, and afterwards the
workers' journal of acknowledged commits is held against the database.

A worker journals a step or a completion only once its COMMIT returned. After the last
fault every acknowledged step must be the run's checkpoint of that number, written by that
claim, and every acknowledged completion the run's result; no acknowledged step may be
done again by a later claim; every run must end succeeded once the leases of the cut-off
attempts lapse; and a claim taken before the first fault, whose run was taken over since,
must be refused every fenced write. A statement the fault cut off (no SQLSTATE, or a
connection-class one) is the fault's doing: its outcome was never acknowledged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.pool import Dispatch, Watch
from agentddl.checks.prove.scenarios.base import Background, ScenarioContext
from agentddl.checks.prove.worker import WorkerContext

STEPS = 3
FAULTS = 5  # faults per run of a scenario (at least five: the bar)
UP_SECONDS = (0.2, 0.5)  # how long a wave runs before the fault (drawn): the wave is mid-way
CUT_OFF = ("08", "57P")  # SQLSTATE classes of a connection a fault cut off

GUARDED = {
    "faults_missed": "planned faults that did not happen while runs were live",
    "lost_acknowledged_steps": "acknowledged steps that are not the run's checkpoint afterwards",
    "lost_acknowledged_completions": "acknowledged completions that are not the run's result",
    "duplicated_steps": "acknowledged steps done again by a later claim",
    "stuck_runs": "runs still in progress when nothing moved any more",
    "lost_runs": "runs that ended without succeeding",
    "stale_writes_accepted": "fenced writes of a claim from before the faults that were accepted",
    "stale_claim_untested": "no claim from before the first fault to present afterwards",
    "errors": "named queries that raised for another reason than the fault",
    "worker_failures": "workers that failed (bug or server error)",
}


def drain_through_faults(
    ctx: ScenarioContext, fault: Callable[[], None], planned: int = FAULTS, wave: int | None = None
) -> tuple[dict[str, Any], Dispatch]:
    """A claim held from before the faults; workers drain waves of runs (`wave` each,
    default from the workers and runs) while `fault()` strikes `planned` times; the
    counts of what the journal and the database show."""
    tenant = ctx.tenants[0]
    ctx.observer.start_runs(ctx.name, [(tenant, {"steps": STEPS, "held": True})])
    held = ctx.dispatch({ctx.slots[0]: ctx.task("hold", tenant=tenant)})
    stale = next((r["claim"] for r in held.all_results() if r.get("claim")), None)
    injector = Injector(ctx, wave or max(6 * len(ctx.slots), ctx.options.runs // 20), fault, planned)
    injector.start()
    tasks = {s: ctx.task("drain", tenant=ctx.tenant_of_slot(s)) for s in ctx.slots}
    try:
        dispatch = ctx.dispatch(tasks, _watch(ctx, injector))
    finally:
        injector.stop()
    counts = observe(ctx, injector.faults, planned)
    return counts | present_stale(ctx, stale), dispatch


class Injector(Background):
    """Strikes `planned` times, a wave of runs started before each so the fault finds the
    workers mid-run."""

    def __init__(
        self, ctx: ScenarioContext, wave: int, fault: Callable[[], None], planned: int = FAULTS
    ) -> None:
        super().__init__()
        self.ctx, self.wave, self.fault, self.planned = ctx, wave, fault, planned
        self.faults = 0

    def _start_wave(self) -> None:
        """A wave of runs, from a session of the injector's own (the watch uses the
        coordinator's meanwhile)."""
        ctx = self.ctx
        observer = Observer(ctx.observer.dsn, ctx.model)
        try:
            plans = [(ctx.rng.choice(ctx.tenants), {"steps": STEPS}) for _ in range(self.wave)]
            observer.start_runs(ctx.name, plans)
        finally:
            observer.close()

    def loop(self) -> None:
        for _ in range(self.planned):
            self._start_wave()
            if self.halt.wait(self.ctx.rng.uniform(*UP_SECONDS)):
                return
            self.fault()
            self.faults += 1


def _watch(ctx: ScenarioContext, injector: Injector) -> Watch:
    """The drain's watch, through the faults: while the server cannot be reached the
    observer's questions fail; such a poll counts as not finished, nothing moved."""

    def finished() -> bool:
        return injector.done.is_set() and _asked(ctx, lambda: ctx.observer.live_runs(ctx.name) == 0, False)

    def progress() -> Any:
        return (injector.faults, _asked(ctx, lambda: ctx.observer.progress(ctx.name), None))

    watch = ctx.drain_watch()
    return Watch(
        finished=finished, progress=progress, stall_seconds=watch.stall_seconds, timeout=watch.timeout
    )


def _asked(ctx: ScenarioContext, question: Callable[[], Any], otherwise: Any) -> Any:
    try:
        return question()
    except Exception:  # the server is down or recovering: ask again at the next poll
        ctx.observer.reconnect(wait=0)
        return otherwise


def observe(ctx: ScenarioContext, faults: int, planned: int = FAULTS) -> dict[str, Any]:
    ctx.observer.reconnect()
    journal = ctx.journal()
    runs = ctx.observer.runs(ctx.name)
    acked_steps = [line for line in journal if line["kind"] == "step"]
    acked_completions = [line for line in journal if line["kind"] == "completed"]
    checkpoints = {(str(c["run_id"]), c["seq"]): c["payload"].get("by") for c in _checkpoints(ctx)}
    results = {str(r["run_id"]): r for r in runs}
    done_by = Counter((line["run"], line["seq"]) for line in acked_steps)
    errors = [line for line in journal if line["kind"] == "error"]
    return {
        "runs": len(runs),
        "runs_completed": sum(1 for r in runs if r["status"] == "succeeded"),
        "faults": faults,
        "faults_missed": planned - faults,
        "acknowledged_steps": len(acked_steps),
        "acknowledged_completions": len(acked_completions),
        "lost_acknowledged_steps": sum(
            1 for line in acked_steps if checkpoints.get((line["run"], line["seq"])) != line["token"]
        ),
        "lost_acknowledged_completions": sum(
            1 for line in acked_completions if not _completed_by(results.get(line["run"]), line["token"])
        ),
        "duplicated_steps": sum(n - 1 for n in done_by.values()),
        "stuck_runs": sum(1 for r in runs if r["status"] in ("queued", "running", "waiting")),
        "lost_runs": sum(1 for r in runs if r["status"] in ("failed", "cancelled")),
        "errors": sum(1 for line in errors if not _cut_off(line)),
        "cut_off_statements": sum(1 for line in errors if _cut_off(line)),
    }


def _checkpoints(ctx: ScenarioContext) -> list[dict[str, Any]]:
    return ctx.observer.child_rows("checkpoints", ctx.name)


def _completed_by(run: dict[str, Any] | None, token: int) -> bool:
    return bool(run and run["status"] == "succeeded" and (run["result"] or {}).get("by") == token)


def _cut_off(line: dict[str, Any]) -> bool:
    """An error the fault caused: the connection was lost (no SQLSTATE), or the server
    said it was shutting down, terminated the session or cannot connect now."""
    sqlstate = line.get("sqlstate") or ""
    return not sqlstate or sqlstate.startswith(CUT_OFF)


def present_stale(ctx: ScenarioContext, claim: dict[str, Any] | None) -> dict[str, int]:
    """The claim held since before the first fault, presented once its run was taken over
    and finished by others: every fenced write must be refused."""
    if claim is None:
        return {"stale_writes_accepted": 0, "stale_claim_untested": 1}
    found = ctx.dispatch({ctx.slots[0]: ctx.task("stale_write", claim=claim)})
    accepted = sum(int(r.get("accepted", 0)) for r in found.all_results())
    return {"stale_writes_accepted": accepted, "stale_claim_untested": 0}


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim one run and keep it without a heartbeat: after the faults its lease has
    lapsed and another worker has taken the run over."""
    return {"claim": steps.claim_within(w, tenant, 30)}


def work_drain(w: WorkerContext, tenant: Any) -> dict[str, int]:
    return steps.drain(w, tenant, STEPS)


def work_stale_write(w: WorkerContext, claim: dict[str, Any]) -> dict[str, int]:
    """Every fenced write with the old claim, each in a transaction rolled back: how many
    the database accepted."""
    accepted = 0
    for write in (steps.heartbeat, lambda w, c: steps.write_step(w, c, STEPS + 1)):
        try:
            accepted += int(bool(write(w, claim)))
        finally:
            w.reconnect_if_broken()
            w.conn.rollback()
    rt = w.runtime(steps.tenant_of(w, claim))
    accepted += int(rt.call("complete_attempt", **steps.fence(w, claim), result=None) is not None)
    w.conn.rollback()
    return {"accepted": accepted}
