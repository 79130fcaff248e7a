"""The probes of the tenant-isolation scenario: every named query a tenant-A session can
aim at tenant B's rows (with B's keys, fencing and lease tokens), each with the test that
says it leaked: it returned B's rows, or changed them. A write the database refuses (a
foreign key to another tenant's run, row-level security's WITH CHECK) is no leak."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

import agentddl.checks.prove.steps as steps
from agentddl.checks.prove.worker import Row, WorkerContext

Probe = tuple[str, Callable[[], bool]]
REFUSED = (psycopg.errors.IntegrityError, psycopg.errors.InsufficientPrivilege)


def probes(w: WorkerContext, a: Any, b: Any, targets: list[Row], own: Row | None) -> list[Probe]:
    """As tenant A (and, under row-level security, also naming B's tenant id)."""
    scopes = [("", w.scope(a))] + ([("[tenant=B]", w.scope(b))] if w.rls else [])
    found: list[Probe] = []
    for label, scope in scopes:
        for target in [t for t in targets if t["status"] == "running"]:
            found += [(f"{name}{label}", probe) for name, probe in _run_probes(w, a, scope, target)]
        found += [(f"{name}{label}", probe) for name, probe in _global_probes(w, a, scope)]
    found += [
        (f"mark_delivered:{t['message_id']}", _relay_probe(w, a, b, t)) for t in targets if t["message_id"]
    ]
    if own is not None:
        found += [
            (f"own_key_namespace:{t['key']}", _own_namespace(w, own, t["key"])) for t in targets if t["key"]
        ]
    return found


def answered(call: Callable[[], Any]) -> bool:
    """A row (or rows) came back; a refusal by the database is no answer."""
    try:
        result = call()
    except REFUSED:
        return False
    return bool(result) if isinstance(result, list) else result is not None


def _run_probes(w: WorkerContext, a: Any, scope: dict[str, Any], t: Row) -> list[Probe]:
    rt = w.runtime(a)
    run = {**scope, "run_id": t["run_id"]}
    history = {**run, "run_created_at": t["run_created_at"]}
    fenced = {**run, "fencing_token": t["fencing_token"]}
    leased = {**fenced, "lease_token": t["lease_token"] or "unknown"}

    def call(name: str, **params: Any) -> Callable[[], bool]:
        return lambda: answered(lambda: rt.call(name, **params))

    return [
        ("get_run", call("get_run", **run)),
        ("child_runs", call("child_runs", **scope, parent_run_id=t["run_id"])),
        ("latest_checkpoint", call("latest_checkpoint", **history)),
        ("run_events", call("run_events", **history, after_seq=0, limit=10)),
        ("run_operations", call("run_operations", **run)),
        ("transition_run", call(
            "transition_run", **run, expected_version=t["version"], to_status="cancelled"
        )),
        ("heartbeat", call("heartbeat", **leased, lease_seconds=60)),
        ("complete_attempt", call("complete_attempt", **leased, result=Jsonb({}))),
        ("fail_attempt", call("fail_attempt", **leased, error="probe", retryable=True, backoff_seconds=1)),
        ("interrupt_attempt", call("interrupt_attempt", **leased, reason="probe")),
        ("save_checkpoint", call("save_checkpoint", **leased, **_checkpoint())),
        ("append_event", call(
            "append_event", **leased, kind="probe", actor="system", policy_version=None,
            payload=Jsonb({}),
        )),
        ("reserve_operation", call(
            "reserve_operation", **leased, idempotency_key=f"probe-{t['run_id']}", input_hash=b"\2" * 32
        )),
        ("complete_operation", call(
            "complete_operation", **scope, idempotency_key=t["key"], run_id=t["run_id"],
            fencing_token=t["fencing_token"], lease_token=leased["lease_token"], status="failed",
            result=None,
        )),
        ("enqueue_outbox", call("enqueue_outbox", **run, topic="probe", payload=Jsonb({}))),
        ("start_run", call(
            "start_run", **scope, run_key="probe", parent_run_id=t["run_id"], kind="probe",
            input=Jsonb({}), priority=0, trace_id=None,
        )),
        ("transition_run_with_event", call(
            "transition_run_with_event", **run, expected_version=t["version"], to_status="cancelled",
            actor="system",
        )),
        *_part_probes(w, call, run, leased, t["key"]),
    ]  # fmt: skip


def _part_probes(
    w: WorkerContext,
    call: Callable[..., Callable[[], bool]],
    run: dict[str, Any],
    leased: dict[str, Any],
    key: str,
) -> list[Probe]:
    """The optional parts' queries (profile model:) the profile has; key: the other
    tenant's operation."""
    parts = w.model.profile.model
    found: list[Probe] = []
    if parts.nodes:
        node = {"node_id": "probe"}
        found += [
            ("start_node", call("start_node", **leased, **node)),
            ("node_execution", call("node_execution", **run, **node)),
            ("run_node_executions", call("run_node_executions", **run)),
            ("node_tool_calls", call("node_tool_calls", **run, **node, node_attempt=1)),
        ]
    if parts.approvals:
        found += [
            ("request_approval", call(
                "request_approval", **leased, node_id=None, request=Jsonb({}), requested_by="probe"
            )),
            ("run_approvals", call("run_approvals", **run)),
        ]  # fmt: skip
    if parts.notes:
        found += [
            ("append_attempt_note", call("append_attempt_note", **leased, note_kind="warning", body="probe")),
            ("run_attempt_notes", call("run_attempt_notes", **run, limit=10)),
        ]
    if parts.details:
        found += [
            ("record_step", call("record_step", **leased, current_step="probe")),
            ("describe_operation", call(
                "describe_operation", **leased, idempotency_key=key, action="probe",
                provider_reference=None, trace_id=None, span_id=None,
            )),
        ]  # fmt: skip
    return found


def _checkpoint() -> dict[str, Any]:
    return {
        "parent_seq": None,
        "state_schema_version": 1,
        "next_nodes": [],
        "completed_nodes": [],
        "metadata": None,
        "payload": Jsonb({}),
        "payload_ref": None,
        "payload_bytes": None,
        "payload_sha256": None,
    }


def _global_probes(w: WorkerContext, a: Any, scope: dict[str, Any]) -> list[Probe]:
    rt = w.runtime(a)
    column = w.tenant_column or ""
    now = datetime.now(UTC)
    window = {"window_start": now - timedelta(hours=1), "window_end": now + timedelta(hours=1)}

    def foreign(rows: list[Row]) -> bool:
        return any(row[column] != a for row in rows)

    found: list[Probe] = [
        ("events_since", lambda: foreign(rt.call("events_since", **scope, after_id=0, limit=10000))),
        ("events_in_window", lambda: foreign(rt.call("events_in_window", **scope, **window))),
    ]
    if w.rls and scope[column] != a:  # claim_run is tenant-scoped only under row-level security
        found.append(("claim_run", lambda: answered(lambda: rt.call(
            "claim_run", **scope, worker_id="probe", lease_token=w.new_token(), lease_seconds=60
        ))))  # fmt: skip
    return found


def _relay_probe(w: WorkerContext, a: Any, b: Any, t: Row) -> Callable[[], bool]:
    """The relay claims B's message; acknowledging it in A's name must change nothing.
    (The relay itself works across tenants: naming B's tenant is its job, not a leak.)"""

    def probe() -> bool:
        relay = w.runtime(None)
        scope = w.scope(b) if w.distributed else {}  # with Citus the relay names B's tenant
        relay.call("relay_claim", **scope, relay_id="probe-relay", claim_seconds=60, batch_size=10000)
        acked = relay.call("mark_delivered", **w.scope(a), message_id=t["message_id"], relay_id="probe-relay")
        return bool(acked)

    return probe


def _own_namespace(w: WorkerContext, own: Row, key: str) -> Callable[[], bool]:
    """B's idempotency key used by A: a new reservation in A's namespace, never B's result."""

    def probe() -> bool:
        reserved = w.runtime(steps.tenant_of(w, own)).call(
            "reserve_operation",
            **steps.fence(w, own),
            idempotency_key=key,
            input_hash=b"\1" * 32,
        )
        return reserved is None or not reserved["inserted"] or reserved["result"] is not None

    return probe
