"""4. Forged lease: holders claim runs, write step 1 and reserve an operation, and keep
their leases live. An attacker who knows everything that is not a secret (each run's
key, its current fencing token: a small counter anyone can guess, and the holder's
operation key) but not the lease token tries every write of an attempt's work with a
lease token of its own: a heartbeat, event 2, checkpoint 2, a new reservation, the
result of the holder's operation, failing, interrupting and completing the attempt.
Every one must change nothing; then the holders finish their runs untouched.

Observed: what each forged write returned (a row = accepted), and the holders' own
writes and read-backs afterwards (their checkpoint is the latest, their events follow
on, their operation's result is theirs).
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "forged_lease"
HOLD_SECONDS = 120  # the holders' leases: only the lease token may stand between attacker and run
FORGED_WRITES = 8  # per run, what _forged_writes tries of the core writes
# The model parts' fenced writes (profile `model`), tried where the profile has them:
# (what, query, its parameters besides the fence).
PART_WRITES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("node", "start_node", {"node_id": "forged"}),
    ("approval", "request_approval", {"node_id": None, "request": Jsonb({}), "requested_by": "agent:forger"}),
    ("note", "append_attempt_note", {"note_kind": "finding", "body": "forged"}),
    ("step", "record_step", {"current_step": "forged"}),
)


def part_writes(names: frozenset[str]) -> list[tuple[str, str, dict[str, Any]]]:
    return [write for write in PART_WRITES if write[1] in names]


def run(ctx: ScenarioContext) -> ScenarioResult:
    tenant = ctx.tenants[0]
    count = ctx.options.stale_runs
    ctx.observer.start_runs(NAME, ((tenant, {}) for _ in range(count)))
    half = max(1, len(ctx.slots) // 2)
    holders, attackers = ctx.slots[:half], ctx.slots[half:] or ctx.slots[:1]
    watch = Watch(
        finished=lambda: ctx.observer.live_queued(NAME) == 0,
        progress=lambda: ctx.observer.progress(NAME),
        stall_seconds=ctx.options.stall_seconds,
    )
    held = ctx.dispatch({s: ctx.task("hold", lease=HOLD_SECONDS, tenant=tenant) for s in holders}, watch)
    claims = [c for result in held.all_results() for c in result["claims"]]
    targets = _targets(ctx, claims)
    forged = ctx.dispatch(
        {s: ctx.task("forge", targets=targets[i :: len(attackers)]) for i, s in enumerate(attackers)}
    )
    finish = ctx.dispatch(
        {s: ctx.task("finish", claims=claims[i :: len(holders)]) for i, s in enumerate(holders)}
    )
    counts = _observe(ctx, count, len(claims))
    counts["worker_failures"] = sum(len(d.failures) for d in (held, forged, finish))
    return ctx.result(counts, SCENARIO.guarded)


SCENARIO = Scenario(
    NAME,
    order=4,
    guarded={
        "forged_writes_accepted": "writes with a forged lease token (right run and fencing token) accepted",
        "forged_writes_missing": "forged writes never tried (no run was held: nothing was proven)",
        "holder_state_damaged": "held runs whose holder's writes or read-backs failed afterwards",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed",
    },
)


def _targets(ctx: ScenarioContext, claims: list[Row]) -> list[Row]:
    """What the attacker knows of each held run: key, created_at, the run's fencing token
    as the database has it now, the holder's operation key. Not the lease token."""
    known = []
    for claim in claims:
        row = ctx.observer.one(
            sql.SQL("SELECT r.fencing_token FROM {} AS r WHERE r.run_id = %s").format(
                ctx.observer.table("runs")
            ),
            [claim["run_id"]],
        )
        target = {k: claim[k] for k in ("run_id", "run_created_at", "version", "attempt_no")}
        if ctx.model.profile.tenancy.column:
            target[ctx.model.profile.tenancy.column] = claim[ctx.model.profile.tenancy.column]
        known.append({**target, "fencing_token": row["fencing_token"], "key": _key(claim)})
    return known


def _writes_per_run(ctx: ScenarioContext) -> int:
    return FORGED_WRITES + len(part_writes(frozenset(path.name for path in ctx.model.access_paths)))


def _observe(ctx: ScenarioContext, count: int, held: int) -> dict[str, Any]:
    journal = ctx.journal()
    writes = [line for line in journal if line["kind"] == "forged_write"]
    return {
        "runs": count,
        "runs_held": held,
        "forged_writes_attempted": len(writes),
        "forged_writes_accepted": sum(1 for line in writes if line["accepted"]),
        "forged_writes_missing": max(count, 1) * _writes_per_run(ctx) - len(writes),
        "holder_state_damaged": sum(
            1 for line in journal if line["kind"] == "finished" and not line["intact"]
        ),
        "runs_completed": ctx.completed_runs(),
        "errors": errors(journal),
    }


def _key(claim: Row) -> str:
    return f"forged-{claim['run_id']}"


def work_hold(w: WorkerContext, tenant: Any) -> dict[str, Any]:
    """Claim runs, write step 1 and reserve an operation for each; keep them."""
    held = []
    for claim in steps.claims(w, tenant):
        try:
            steps.write_step(w, claim, 1)
            _reserve(w, claim, steps.fence(w, claim), _key(claim))
            w.conn.commit()
        except psycopg.Error as error:
            steps.failed(w, "hold", error)
        held.append(claim)
    return {"claims": held}


def _reserve(w: WorkerContext, claim: Row, fence: dict[str, Any], key: str) -> Row | None:
    reserved: Row | None = w.runtime(steps.tenant_of(w, claim)).call(
        "reserve_operation", **fence, idempotency_key=key, input_hash=key.encode().ljust(32, b"\0")[:32]
    )
    return reserved


def work_forge(w: WorkerContext, targets: list[Row]) -> dict[str, Any]:
    """Every write of an attempt's work, each in its own transaction, with a lease token
    the attacker made up; journaled as accepted (a row came back) or not."""
    for target in targets:
        for what, write in _forged_writes(w, target):
            try:
                accepted = bool(write())
                w.conn.rollback()  # whatever got through must not stay
            except psycopg.errors.IntegrityError:  # refused by a constraint: rejected too
                accepted = False
            except psycopg.Error as error:
                steps.failed(w, what, error)
                accepted = False
            w.journal.write("forged_write", run=str(target["run_id"]), what=what, accepted=accepted)
    return {}


def _forged_writes(w: WorkerContext, t: Row) -> list[tuple[str, Any]]:
    rt = w.runtime(steps.tenant_of(w, t))
    forged = {**w.scope(steps.tenant_of(w, t)), "run_id": t["run_id"], "fencing_token": t["fencing_token"]}
    forged["lease_token"] = f"forged-{uuid.uuid4().hex}"
    return [
        ("heartbeat", lambda: rt.call("heartbeat", **forged, lease_seconds=60)),
        ("event", lambda: rt.call(
            "append_event", **forged, kind="step.done", actor="agent:forger", policy_version=None,
            payload=Jsonb({"forged": True}),
        )),
        ("checkpoint", lambda: rt.call(
            "save_checkpoint", **forged, parent_seq=1, state_schema_version=1, next_nodes=[],
            completed_nodes=[], metadata=None, payload=Jsonb({"step": 2, "by": "forger"}), payload_ref=None,
            payload_bytes=None, payload_sha256=None,
        )),
        ("operation", lambda: _reserve(w, t, forged, f"forger-{t['run_id']}")),
        ("operation_result", lambda: rt.call(
            "complete_operation", **forged, idempotency_key=t["key"], status="failed",
            result=Jsonb({"by": "forger"}),
        )),
        ("fail", lambda: rt.call(
            "fail_attempt", **forged, error="forged", retryable=False, backoff_seconds=1
        )),
        ("interrupt", lambda: rt.call("interrupt_attempt", **forged, reason="forged")),
        ("complete", lambda: rt.call("complete_attempt", **forged, result=Jsonb({"by": "forger"}))),
        *((what, partial(rt.call, name, **forged, **args)) for what, name, args in part_writes(rt.names)),
    ]  # fmt: skip


def work_finish(w: WorkerContext, claims: list[Row]) -> dict[str, Any]:
    """The holders go on: step 2, their operation's result, read-backs, completion."""
    return steps.finish_each(w, claims, _finish)


def _finish(w: WorkerContext, claim: Row) -> bool:
    intact = steps.step_two_intact(w, claim, _key(claim))
    return bool(intact and steps.complete(w, claim))
