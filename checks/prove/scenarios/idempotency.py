"""4. Idempotency: every worker holds a run and asks for the same side effects, under the
same idempotency keys, all at once. Most ask with the key's input; for every key one
worker asks with a different input. Per key the effect must happen exactly once; a
request with the first input gets the first result (or waits for it), never a second
effect; a request with another input is refused as a conflict (the stored input hash).

Observed: the journal is the outside world: each effect performed (the API call the key
guards) and what every request got back.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections import Counter, defaultdict
from typing import Any

import psycopg

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.pool import Watch
from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.scenarios import Scenario
from agentddl.checks.prove.scenarios.base import ScenarioContext, errors
from agentddl.checks.prove.worker import Row, WorkerContext

NAME = "idempotency"
WAIT_SECONDS = 30.0  # how long a request waits for another's pending effect
HOLD_SECONDS = 120  # the requesters' leases: no claim may expire while they ask


def run(ctx: ScenarioContext) -> ScenarioResult:
    tenant = ctx.tenants[0]  # keys are per tenant: one tenant, so they collide
    ctx.observer.start_runs(NAME, ((tenant, {}) for _ in ctx.slots))
    keys = [f"charge-{n}-{uuid.uuid4().hex[:8]}" for n in range(ctx.options.idempotency_keys)]
    variant = {key: ctx.rng.choice(ctx.slots) for key in keys}
    tasks = {}
    for slot in ctx.slots:
        order = ctx.rng.sample(keys, len(keys))
        requests = [(k, "other" if variant[k] == slot else "first") for k in order]
        tasks[slot] = ctx.task("request", lease=HOLD_SECONDS, tenant=tenant, requests=requests)
    watch = Watch(timeout=120.0 + len(keys) * len(ctx.slots) * 0.2)
    dispatch = ctx.dispatch(tasks, watch)
    counts = judge(ctx.journal(), expected_requests=len(keys) * len(ctx.slots))
    counts["runs_completed"] = ctx.completed_runs()
    return ctx.result(counts, SCENARIO.guarded, dispatch)


SCENARIO = Scenario(
    NAME,
    order=5,
    guarded={
        "duplicate_effects": "effects done more than once for one key",
        "keys_without_effect": "keys whose effect never happened",
        "wrong_results": "same-input requests that did not get the first result",
        "conflicts_missed": "different-input requests not refused as a conflict",
        "unanswered": "requests that never got an answer",
        "requests_missing": "requests never made (a worker found no run to hold: nothing was proven)",
        "errors": "named queries that raised",
        "worker_failures": "workers that failed (bug or server error)",
    },
)


def judge(journal: list[dict[str, Any]], expected_requests: int) -> dict[str, Any]:
    effects: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in journal:
        if line["kind"] == "effect":
            effects[line["key"]].append(line)
    requests = [line for line in journal if line["kind"] == "request"]
    keys = {line["key"] for line in requests}
    wrong = missed = 0
    for line in requests:
        first = effects[line["key"]][0] if line["key"] in effects else None
        if first is None or line["outcome"] == "unanswered":
            continue
        if line["input"] == first["input"]:
            wrong += line["outcome"] not in ("performed", "reused") or line["result"] != first["effect"]
        else:
            missed += line["outcome"] != "conflict"
    outcomes = Counter(line["outcome"] for line in requests)
    return {
        "keys": len(keys),
        "requests": len(requests),
        "effects": sum(len(e) for e in effects.values()),
        "duplicate_effects": sum(len(e) - 1 for e in effects.values() if e),
        "keys_without_effect": sum(1 for k in keys if k not in effects),
        "reused": outcomes["reused"],
        "conflicts": outcomes["conflict"],
        "waited": sum(line["waits"] for line in requests),
        "wrong_results": wrong,
        "conflicts_missed": missed,
        "unanswered": outcomes["unanswered"],
        "requests_missing": max(0, expected_requests - len(requests)),
        "errors": errors(journal),
    }


def input_of(key: str, which: str) -> dict[str, Any]:
    return {"key": key, "amount": 10 if which == "first" else 99}


def input_hash(data: dict[str, Any]) -> bytes:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).digest()


def work_request(w: WorkerContext, tenant: Any, requests: list[tuple[str, str]]) -> dict[str, Any]:
    """Hold a run, wait for every worker to hold one, then ask for every key's effect."""
    claim = steps.claim_within(w, tenant, WAIT_SECONDS)
    w.ready()
    if claim is None:
        return {"claimed": False}
    for key, which in requests:
        _request(w, claim, key, input_of(key, which))
    steps.complete(w, claim, message=False)
    return {"claimed": True}


def _request(w: WorkerContext, claim: Row, key: str, data: dict[str, Any]) -> None:
    """Reserve the key; do the effect if the reservation is new (or ours to redo); else
    take the recorded result, a conflict, or wait for whoever is doing it."""
    waits = 0
    deadline = time.monotonic() + WAIT_SECONDS
    outcome, result = "unanswered", None
    while time.monotonic() < deadline:
        try:
            reserved = _reserve(w, claim, key, data)
        except psycopg.Error as error:
            steps.failed(w, "reserve", error)
            break
        if reserved is None:  # our own claim was lost: no answer for this request
            break
        outcome, result = _read(w, claim, key, data, reserved)
        if outcome != "pending":
            break
        waits += 1
        steps.pause(0.01)
    outcome = "unanswered" if outcome == "pending" else outcome
    w.journal.write("request", key=key, input=data["amount"], outcome=outcome, result=result, waits=waits)


def _reserve(w: WorkerContext, claim: Row, key: str, data: dict[str, Any]) -> Row | None:
    reserved: Row | None = w.runtime(steps.tenant_of(w, claim)).call(
        "reserve_operation",
        **steps.fence(w, claim),
        idempotency_key=key,
        input_hash=input_hash(data),
    )
    w.conn.commit()
    return reserved


def _read(w: WorkerContext, claim: Row, key: str, data: dict[str, Any], reserved: Row) -> tuple[str, Any]:
    if not reserved["same_input"]:
        return "conflict", None
    if reserved["status"] == "succeeded":
        return "reused", (reserved["result"] or {}).get("effect")
    if reserved["status"] == "pending" and (reserved["inserted"] or reserved["owned"]):
        return "performed", _perform(w, claim, key, data)
    return "pending", None


def _perform(w: WorkerContext, claim: Row, key: str, data: dict[str, Any]) -> str | None:
    effect = uuid.uuid4().hex
    w.journal.write("effect", key=key, input=data["amount"], effect=effect)  # the call happened
    try:
        recorded = steps.record_operation(w, claim, key, {"effect": effect})
        w.conn.commit()
    except psycopg.Error as error:
        steps.failed(w, "complete_operation", error)
        return None
    return effect if recorded is not None else None
