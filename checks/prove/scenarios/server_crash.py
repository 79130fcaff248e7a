"""Server crash: every process of the database server is killed at once (SIGKILL to its
process group: what a power loss leaves of the server's memory) several times while the
workers drain runs, and the server is started again each time (crash recovery from the
WAL). Only a server prove started itself can be crashed.

Observed: each worker journals a step or a completion only once its COMMIT was
acknowledged. After the last recovery, every acknowledged step must be the run's
checkpoint of that number, written by that claim, and every acknowledged completion the
run's result; no acknowledged step may be done again by a later claim; every run must
end succeeded once the leases of the crashed attempts lapse; and a claim taken before
the first crash, whose run was taken over since, must be refused every fenced write.
A statement cut off by the crash is the crash's doing (its outcome was never
acknowledged); any other error counts.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext
from agentddl.checks.prove.worker import WorkerContext

NAME = "server_crash"
STEPS = 3
CRASHES = 5  # crashes per run of the scenario (at least five: the bar)
UP_SECONDS = (0.2, 0.5)  # how long a wave runs before the crash (drawn): the wave is mid-way
SERVER_GONE = ("08", "57P")  # SQLSTATE classes of a connection the crash cut off


SCENARIO = Scenario(
    NAME,
    order=15,
    guarded={
        "crashes_missed": "planned crashes that did not happen while runs were live",
        "lost_acknowledged_steps": "acknowledged steps that are not the run's checkpoint after recovery",
        "lost_acknowledged_completions": "acknowledged completions that are not the run's result",
        "duplicated_steps": "acknowledged steps done again by a later claim",
        "stuck_runs": "runs still in progress when nothing moved any more",
        "lost_runs": "runs that ended without succeeding",
        "stale_writes_accepted": "fenced writes of a claim from before the crashes that were accepted",
        "stale_claim_untested": "no claim from before the first crash to present afterwards",
        "errors": "named queries that raised for another reason than the crash",
        "worker_failures": "workers that failed (bug or server error)",
    },
    crashes_server=True,
)


def run(ctx: ScenarioContext) -> ScenarioResult:
    server = ctx.server
    if server is None:  # the runner never picks this scenario without one
        raise RuntimeError("server_crash needs a server prove started itself")
    wave = max(6 * len(ctx.slots), ctx.options.runs // 20)
    tenant = ctx.tenants[0]
    ctx.observer.start_runs(NAME, [(tenant, {"steps": STEPS, "held": True})])
    held = ctx.dispatch({ctx.slots[0]: ctx.task("hold", tenant=tenant)})
    stale = next((r["claim"] for r in held.all_results() if r.get("claim")), None)
    crasher = Crasher(ctx, wave)
    crasher.start()
    tasks = {s: ctx.task("drain", tenant=ctx.tenant_of_slot(s)) for s in ctx.slots}
    try:
        dispatch = ctx.dispatch(tasks, _watch(ctx, crasher))
    finally:
        crasher.stop()
    counts = observe(ctx, crasher.crashes)
    counts |= _present_stale(ctx, stale)
    counts["recovery_seconds_max"] = round(max(crasher.recoveries, default=0.0), 2)
    return ctx.result(counts, SCENARIO.guarded, dispatch)


class Crasher:
    """Kills the server `CRASHES` times, a wave of runs started before each crash so the
    crash finds workers mid-run, and starts it again each time."""

    def __init__(self, ctx: ScenarioContext, wave: int) -> None:
        self.ctx, self.wave = ctx, wave
        self.crashes, self.recoveries = 0, list[float]()
        self.done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self.failure: BaseException | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.failure is not None:
            raise self.failure

    def _start_wave(self) -> None:
        """A wave of runs, from a session of the crasher's own (the watch uses the
        coordinator's meanwhile)."""
        ctx = self.ctx
        observer = Observer(ctx.observer.dsn, ctx.model)
        try:
            plans = [(ctx.rng.choice(ctx.tenants), {"steps": STEPS}) for _ in range(self.wave)]
            observer.start_runs(NAME, plans)
        finally:
            observer.close()

    def _loop(self) -> None:
        ctx, server = self.ctx, self.ctx.server
        assert server is not None
        try:
            for _ in range(CRASHES):
                self._start_wave()
                if self._stop.wait(ctx.rng.uniform(*UP_SECONDS)):
                    return
                started = time.monotonic()
                server.crash()
                server.restart()
                self.recoveries.append(time.monotonic() - started)
                self.crashes += 1
        except BaseException as error:  # reported by stop(), in the coordinator's thread
            self.failure = error
        finally:
            self.done.set()


def _watch(ctx: ScenarioContext, crasher: Crasher) -> Watch:
    """The drain's watch, through the crashes: while the server is down (or just back)
    the observer's questions fail; such a poll counts as not finished, nothing moved."""

    def finished() -> bool:
        return crasher.done.is_set() and _asked(ctx, lambda: ctx.observer.live_runs(NAME) == 0, False)

    def progress() -> Any:
        return (crasher.crashes, _asked(ctx, lambda: ctx.observer.progress(NAME), None))

    watch = ctx.drain_watch()
    return Watch(
        finished=finished,
        progress=progress,
        stall_seconds=watch.stall_seconds,
        timeout=watch.timeout,
    )


def _asked(ctx: ScenarioContext, question: Any, otherwise: Any) -> Any:
    try:
        return question()
    except Exception:  # the server is down or recovering: ask again at the next poll
        ctx.observer.reconnect(wait=0)
        return otherwise


def observe(ctx: ScenarioContext, crashes: int) -> dict[str, Any]:
    ctx.observer.reconnect()
    journal = ctx.journal()
    runs = ctx.observer.runs(NAME)
    acked_steps = [line for line in journal if line["kind"] == "step"]
    acked_completions = [line for line in journal if line["kind"] == "completed"]
    checkpoints = {(str(c["run_id"]), c["seq"]): c["payload"].get("by") for c in _checkpoints(ctx)}
    results = {str(r["run_id"]): r for r in runs}
    done_by = Counter((line["run"], line["seq"]) for line in acked_steps)
    return {
        "runs": len(runs),
        "runs_completed": sum(1 for r in runs if r["status"] == "succeeded"),
        "crashes": crashes,
        "crashes_missed": CRASHES - crashes,
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
        "errors": sum(1 for line in journal if line["kind"] == "error" and not _cut_off(line)),
        "cut_off_statements": sum(1 for line in journal if line["kind"] == "error" and _cut_off(line)),
    }


def _checkpoints(ctx: ScenarioContext) -> list[dict[str, Any]]:
    return ctx.observer.child_rows("checkpoints", NAME)


def _completed_by(run: dict[str, Any] | None, token: int) -> bool:
    return bool(run and run["status"] == "succeeded" and (run["result"] or {}).get("by") == token)


def _cut_off(line: dict[str, Any]) -> bool:
    """An error the crash caused: the connection was lost (no SQLSTATE), or the server
    said it was shutting down or cannot connect now."""
    sqlstate = line.get("sqlstate") or ""
    return not sqlstate or sqlstate.startswith(SERVER_GONE)


def _present_stale(ctx: ScenarioContext, claim: dict[str, Any] | None) -> dict[str, int]:
    """The claim held since before the first crash, presented once its run was taken over
    and finished by others: every fenced write must be refused."""
    if claim is None:
        return {"stale_writes_accepted": 0, "stale_claim_untested": 1}
    found = ctx.dispatch({ctx.slots[0]: ctx.task("stale_write", claim=claim)})
    accepted = sum(int(r.get("accepted", 0)) for r in found.all_results())
    return {"stale_writes_accepted": accepted, "stale_claim_untested": 0}


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim one run and keep it without a heartbeat: after the crashes its lease has
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
