"""A worker's building blocks, named queries only: poll for a run (claim_run, which
also takes over a run whose lease ran out: no reaper, no expire_leases), work it step
by step from its latest checkpoint (every write presenting the lease token), complete
it with its outbox message in one transaction.

Every function commits what it did, or rolls back and says why. Crash points
(WorkerContext.maybe_crash) sit where a real worker can die: inside a heartbeat's
transaction, after a step's writes but before COMMIT, after a COMMIT.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from agentddl.checks.db.connect import error_line
from agentddl.checks.prove.worker import Row, WorkerContext


def claim_next(w: WorkerContext, tenant: Any | None) -> Row | None:
    """claim_run: the worker's poll. None: nothing due (or an error, journaled)."""
    rt = w.runtime(tenant)
    token = w.new_token()
    try:
        claim: Row | None = rt.call(
            "claim_run",
            **w.claim_scope(tenant),
            worker_id=f"worker-{w.slot}",
            lease_token=token,
            lease_seconds=w.lease_seconds,
        )
        w.conn.commit()
    except psycopg.Error as error:
        failed(w, "poll", error)
        return None
    if claim is not None:
        claim["lease_token"] = token
        w.journal.write(
            "claimed", run=str(claim["run_id"]), attempt=claim["attempt_no"], token=claim["fencing_token"]
        )
    return claim


def relay_claim(
    w: WorkerContext, rt: Any, relay_id: str, batch_size: int, tenants: Sequence[Any]
) -> list[Row]:
    """relay_claim: one global batch; with Citus, one router query per tenant the relay
    serves, in one transaction (a relay serves a set of tenants)."""
    scopes = [w.scope(t) for t in tenants] if w.distributed else [{}]
    batch: list[Row] = []
    for scope in scopes:
        batch += rt.call(
            "relay_claim", **scope, relay_id=relay_id, claim_seconds=w.lease_seconds, batch_size=batch_size
        )
    return batch


def claims(w: WorkerContext, tenant: Any | None, poll: float = 0.02) -> Iterator[Row]:
    """The worker's claims, one at a time, until the coordinator says stop; `poll`
    seconds between polls that find nothing due."""
    while not w.stop.is_set():
        claim = claim_next(w, tenant)
        if claim is None:
            pause(poll)
        else:
            yield claim


def claim_within(w: WorkerContext, tenant: Any | None, seconds: float) -> Row | None:
    """Poll until a run is claimed, for at most `seconds` (or until the coordinator says stop)."""
    deadline = time.monotonic() + seconds
    claim = claim_next(w, tenant)
    while claim is None and time.monotonic() < deadline and not w.stop.is_set():
        pause(0.02)
        claim = claim_next(w, tenant)
    return claim


def failed(w: WorkerContext, what: str, error: psycopg.Error) -> None:
    """A named query raised: roll back, journal the SQLSTATE."""
    w.journal.write("error", what=what, sqlstate=error.sqlstate, message=error_line(error)[:300])
    w.reconnect_if_broken()


def tenant_of(w: WorkerContext, claim: Row) -> Any | None:
    return claim[w.tenant_column] if w.tenant_column else None


def fence(w: WorkerContext, claim: Row) -> dict[str, Any]:
    """The fenced-write parameters of the claim: run, fencing token and lease token."""
    return {
        **w.scope(tenant_of(w, claim)),
        "run_id": claim["run_id"],
        "fencing_token": claim["fencing_token"],
        "lease_token": claim["lease_token"],
    }


def heartbeat(w: WorkerContext, claim: Row) -> bool:
    rt = w.runtime(tenant_of(w, claim))
    renewed = rt.call("heartbeat", **fence(w, claim), lease_seconds=w.lease_seconds)
    w.maybe_crash("during_heartbeat")
    w.conn.commit()
    return renewed is not None


def write_step(w: WorkerContext, claim: Row, seq: int) -> bool:
    """One step's writes in one transaction: its event, then its checkpoint (numbered by
    the live row's counters: the checkpoint's seq is the step's)."""
    rt = w.runtime(tenant_of(w, claim))
    event = rt.call(
        "append_event",
        **fence(w, claim),
        kind="step.done",
        actor=f"agent:worker-{w.slot}",
        policy_version=None,
        payload=Jsonb({"step": seq}),
    )
    saved = event and save_checkpoint(w, claim, seq, {"step": seq, "by": claim["fencing_token"]})
    if not saved:
        w.conn.rollback()
        return False
    w.maybe_crash("before_commit")
    w.conn.commit()
    w.journal.write("step", run=str(claim["run_id"]), seq=seq, token=claim["fencing_token"])
    w.maybe_crash("after_commit")
    return True


def save_checkpoint(w: WorkerContext, claim: Row, seq: int, payload: dict[str, Any]) -> Row | None:
    saved: Row | None = w.runtime(tenant_of(w, claim)).call(
        "save_checkpoint",
        **fence(w, claim),
        parent_seq=seq - 1 or None,
        state_schema_version=1,
        next_nodes=[f"step{seq + 1}"],
        completed_nodes=[f"step{seq}"],
        metadata=Jsonb({"code_version": "prove"}),
        payload=Jsonb(payload),
        payload_ref=None,
        payload_bytes=None,
        payload_sha256=None,
    )
    return saved


def record_operation(w: WorkerContext, claim: Row, key: str, result: dict[str, Any]) -> Row | None:
    """complete_operation: the succeeded result of the claim's operation `key` (fenced by
    the claim; the caller commits)."""
    recorded: Row | None = w.runtime(tenant_of(w, claim)).call(
        "complete_operation",
        **fence(w, claim),
        idempotency_key=key,
        status="succeeded",
        result=Jsonb(result),
    )
    return recorded


def resume_point(w: WorkerContext, claim: Row) -> int:
    """The step to resume after: the latest checkpoint, read back and checked."""
    last = claim["last_checkpoint_seq"]
    if last is None:
        return 0
    latest = w.runtime(tenant_of(w, claim)).call(
        "latest_checkpoint",
        **w.scope(tenant_of(w, claim)),
        run_id=claim["run_id"],
        run_created_at=claim["run_created_at"],
    )
    w.conn.commit()
    intact = latest is not None and latest["seq"] == last and latest["payload"].get("step") == last
    w.journal.write(
        "resumed", run=str(claim["run_id"]), seq=last, intact=intact, token=claim["fencing_token"]
    )
    return int(last)


def complete(w: WorkerContext, claim: Row, message: bool = False) -> bool:
    """complete_attempt and (message) the run's outbox message, in one transaction. Only the
    outbox scenario sends messages: the others' would wait for a relay that never comes."""
    rt = w.runtime(tenant_of(w, claim))
    done = rt.call("complete_attempt", **fence(w, claim), result=Jsonb({"by": claim["fencing_token"]}))
    if done is None:
        w.conn.rollback()
        return False
    if message:
        rt.call(
            "enqueue_outbox",
            **w.scope(tenant_of(w, claim)),
            run_id=claim["run_id"],
            topic="run.succeeded",
            payload=Jsonb({"run_id": str(claim["run_id"])}),
        )
    w.conn.commit()
    w.journal.write("completed", run=str(claim["run_id"]), token=claim["fencing_token"])
    w.maybe_crash("after_complete")
    return True


def work_run(
    w: WorkerContext, claim: Row, steps: int, message: bool = False, crash_step: int | None = None
) -> str:
    """Resume the claimed run and work it to the end: completed, lease_lost or error.
    crash_step: the step where the task's crash point is (0: the claim, steps + 1: the
    completion)."""
    try:
        w.arm(claim, 0, crash_step)  # step 0: the claim itself
        w.maybe_crash("after_claim")
        done = resume_point(w, claim)
        for seq in range(done + 1, steps + 1):
            w.arm(claim, seq, crash_step)
            w.journal.write("effect", run=str(claim["run_id"]), seq=seq, token=claim["fencing_token"])
            if not heartbeat(w, claim) or not write_step(w, claim, seq):
                w.journal.write("lease_lost", run=str(claim["run_id"]), token=claim["fencing_token"])
                return "lease_lost"
        w.arm(claim, steps + 1, crash_step)
        return "completed" if complete(w, claim, message) else "lease_lost"
    except psycopg.Error as error:
        failed(w, "step", error)
        return "error"


def pause(seconds: float) -> None:
    time.sleep(seconds)


def drain(
    w: WorkerContext, tenant: Any | None, steps: int, message: bool = False, crash_step: int | None = None
) -> dict[str, int]:
    """Poll and work runs until the coordinator says stop; counts of what happened."""
    counts: dict[str, int] = {"claims": 0, "empty_polls": 0}
    while not w.stop.is_set():
        claim = claim_next(w, tenant)
        if claim is None:
            counts["empty_polls"] += 1
            pause(w.rng.uniform(0.01, 0.04))
            continue
        counts["claims"] += 1
        outcome = work_run(w, claim, steps, message, crash_step)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def finish_each(
    w: WorkerContext, claims: list[Row], finish: Callable[[WorkerContext, Row], bool]
) -> dict[str, Any]:
    """The rightful holders go on with each claim; whether each run came out intact, journaled."""
    for claim in claims:
        try:
            intact = finish(w, claim)
        except psycopg.Error as error:
            failed(w, "finish", error)
            intact = False
        w.journal.write("finished", run=str(claim["run_id"]), intact=intact)
    return {}


def step_two_intact(w: WorkerContext, claim: Row, operation_key: str) -> bool:
    """The holder writes step 2 (its event, checkpoint 2) and its operation's result, then
    reads back: the latest checkpoint is its own, the events are numbered 1..n without a
    gap or a double, and the last is the holder's own step."""
    rt = w.runtime(tenant_of(w, claim))
    scope = w.scope(tenant_of(w, claim))
    wrote = write_step(w, claim, 2)
    recorded = record_operation(w, claim, operation_key, {"by": claim["fencing_token"]})
    w.conn.commit()
    run = {"run_id": claim["run_id"], "run_created_at": claim["run_created_at"]}
    latest = rt.call("latest_checkpoint", **scope, **run)
    history = rt.call("run_events", **scope, **run, after_seq=0, limit=1000)
    w.conn.commit()
    mine = latest is not None and latest["seq"] == 2 and latest["payload"].get("by") == claim["fencing_token"]
    numbers = [e["seq"] for e in history]
    ordered = numbers == list(range(1, len(numbers) + 1)) and bool(history) and _own_step(w, history[-1])
    return bool(wrote and recorded and mine and ordered)


def _own_step(w: WorkerContext, event: Row) -> bool:
    return bool(event["kind"] == "step.done" and event["actor"] == f"agent:worker-{w.slot}")
