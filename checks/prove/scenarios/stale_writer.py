"""3. Stale writer: worker A claims a run, writes step 1 and reserves an operation, then
stalls (a GC pause, a network partition) past its lease. Worker B's poll expires the
lease and takes the run over. A wakes up and writes as if it still held the run: a
transition from the version it read, checkpoint 2, event 2, a new operation, the result
of the operation B took over, a heartbeat, completion. Every one must be refused (by the
version or fencing check), and B's work afterwards must go through untouched.

Observed: what each stale write returned (a row = accepted; a constraint's refusal is a
rejection too), and B's own writes and read-backs afterwards (its checkpoint is the
latest, its events follow A's, its operation result is recorded).

Not a stale write: A recording the result of an operation B has *not* taken over yet.
A did that effect; the record is what keeps B from doing it a second time.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors, share
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "stale_writer"
HOLD_SECONDS = 120  # B's lease: B must not lose the run while A writes
STALE_WRITES = 7  # per run, what _stale_writes tries


def run(ctx: ScenarioContext) -> ScenarioResult:
    tenant = ctx.tenants[0]  # one tenant: under row-level security A and B share a session tenant
    count = ctx.options.stale_runs
    stale, fresh, held, taken = ctx.stall_and_take_over(tenant, count, HOLD_SECONDS)
    a_claims = [c for result in held.all_results() for c in result["claims"]]
    b_claims = [c for result in taken.all_results() for c in result["claims"]]
    writes = ctx.dispatch({s: ctx.task("stale_writes", claims=share(a_claims, stale, s)) for s in stale})
    finish = ctx.dispatch({s: ctx.task("finish", claims=share(b_claims, fresh, s)) for s in fresh})
    takeovers = sum(1 for c in b_claims if c["attempt_no"] > 1)  # a first attempt takes nothing over
    counts = _observe(ctx, count, takeovers)
    counts["worker_failures"] = sum(len(d.failures) for d in (held, taken, writes, finish))
    return ctx.result(counts, SCENARIO.guarded)


def _observe(ctx: ScenarioContext, count: int, takeovers: int) -> dict[str, Any]:
    journal = ctx.journal()
    writes = [line for line in journal if line["kind"] == "stale_write"]
    return {
        "runs": count,
        "takeovers": takeovers,
        "not_taken_over": count - takeovers,
        "stale_writes_attempted": len(writes),
        "stale_writes_accepted": sum(1 for line in writes if line["accepted"]),
        "stale_writes_missing": count * STALE_WRITES - len(writes),
        "newer_state_damaged": sum(
            1 for line in journal if line["kind"] == "finished" and not line["intact"]
        ),
        "runs_completed": ctx.completed_runs(),
        "errors": errors(journal),
    }


SCENARIO = Scenario(
    NAME,
    order=3,
    guarded={
        "not_taken_over": "stalled runs no other worker took over",
        "stale_writes_accepted": "writes of a taken-over worker that were accepted",
        "stale_writes_missing": "stale writes never tried (A held no run: nothing was proven)",
        "newer_state_damaged": "runs where the newer attempt's writes or read-backs failed",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed",
    },
)


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """A: claim, write step 1, reserve an operation; then stall (return the claims)."""
    held = []
    for claim in steps.claims(w, tenant):
        try:
            steps.write_step(w, claim, 1)
            _reserve(w, claim, f"stale-{claim['run_id']}")
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "hold", error)
        held.append(claim)
    return {"claims": held}


def work_take_over(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """B: poll until the stalled leases expire, take the runs over, take over the
    operation A left pending; hold them."""
    taken = []
    for claim in steps.claims(w, tenant, poll=0.05):
        try:
            steps.resume_point(w, claim)
            reserved = _reserve(w, claim, f"stale-{claim['run_id']}")
            w.conn.commit()
            claim["owned_operation"] = bool(reserved and reserved["owned"])
        except psycopg.Error as error:
            steps.failed(w, "take_over", error)
        taken.append(claim)
    return {"claims": taken}


def _reserve(w: WorkerContext, claim: Row, key: str) -> Row | None:
    reserved: Row | None = w.runtime(steps.tenant_of(w, claim)).call(
        "reserve_operation",
        **steps.fence(w, claim),
        idempotency_key=key,
        input_hash=key.encode().ljust(32, b"\0")[:32],
    )
    return reserved


def work_stale_writes(w: WorkerContext, claims: list[Row]) -> dict[str, Any]:
    """A wakes up: every write it tries, each in its own transaction, journaled."""
    for claim in claims:
        for what, write in _stale_writes(w, claim):
            try:
                accepted = bool(write())
                w.conn.commit()
            except psycopg.errors.IntegrityError:  # refused by a constraint: rejected too
                accepted = False
            except psycopg.Error as error:
                steps.failed(w, what, error)
                accepted = False
            w.journal.write("stale_write", run=str(claim["run_id"]), what=what, accepted=accepted)
    return {}


def _stale_writes(w: WorkerContext, claim: Row) -> list[tuple[str, Any]]:
    rt = w.runtime(steps.tenant_of(w, claim))
    scope = w.scope(steps.tenant_of(w, claim))
    fenced = steps.fence(w, claim)
    return [
        (
            "transition",
            lambda: rt.call(
                "transition_run",
                **scope,
                run_id=claim["run_id"],
                expected_version=claim["version"],
                to_status="cancelled",
            ),
        ),
        ("checkpoint", lambda: steps.save_checkpoint(w, claim, 2, {"step": 2, "by": claim["fencing_token"]})),
        (
            "event",
            lambda: rt.call(
                "append_event",
                **fenced,
                kind="step.done",
                actor="agent:stale",
                policy_version=None,
                payload=Jsonb({"stale": True}),
            ),
        ),
        ("operation", lambda: _reserve(w, claim, f"stale-new-{claim['run_id']}")),
        (
            "operation_result",
            lambda: steps.record_operation(w, claim, f"stale-{claim['run_id']}", {"by": "stale"}),
        ),
        ("heartbeat", lambda: rt.call("heartbeat", **steps.fence(w, claim), lease_seconds=60)),
        (
            "complete",
            lambda: rt.call("complete_attempt", **steps.fence(w, claim), result=Jsonb({"by": "stale"})),
        ),
    ]


def work_finish(w: WorkerContext, claims: list[Row]) -> dict[str, Any]:
    """B goes on: step 2, its operation's result, read-backs, completion."""
    return steps.finish_each(w, claims, _finish)


def _finish(w: WorkerContext, claim: Row) -> bool:
    intact = steps.step_two_intact(w, claim, f"stale-{claim['run_id']}")
    return bool(intact and claim.get("owned_operation") and steps.complete(w, claim))
