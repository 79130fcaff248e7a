"""The probes of the tenant-isolation scenario: every named query a tenant-A session can
aim at tenant B's rows, each with the test that says it leaked (returned B's rows, or
changed them)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg.types.json import Jsonb

from agentddl.checks.prove import steps
from agentddl.checks.prove.worker import Row, WorkerContext

Probe = tuple[str, Callable[[], bool]]
TARGETS_PROBED = 2


def probes(w: WorkerContext, a: Any, b: Any, targets: list[Row], own: Row | None) -> list[Probe]:
    """As tenant A (and, under row-level security, also naming B's tenant id)."""
    scopes = [("", w.scope(a))] + ([("[tenant=B]", w.scope(b))] if w.rls else [])
    found: list[Probe] = []
    for label, scope in scopes:
        for target in [t for t in targets if t["status"] == "running"][:TARGETS_PROBED]:
            found += [(f"{name}{label}", probe) for name, probe in _run_probes(w, a, scope, target)]
        found += [(f"{name}{label}", probe) for name, probe in _global_probes(w, a, scope)]
    if own is not None:
        found += [
            (f"own_key_namespace:{t['key']}", _own_namespace(w, own, t["key"]))
            for t in targets[:1]
            if t["key"]
        ]
    return found


def _run_probes(w: WorkerContext, a: Any, scope: dict[str, Any], t: Row) -> list[Probe]:
    rt = w.runtime(a)
    run = {**scope, "run_id": t["run_id"]}
    history = {**run, "run_created_at": t["run_created_at"]}
    fenced = {**run, "fencing_token": t["fencing_token"]}

    def call(name: str, **params: Any) -> Any:
        return rt.call(name, **params)

    return [
        ("get_run", lambda: call("get_run", **run) is not None),
        ("latest_checkpoint", lambda: call("latest_checkpoint", **history) is not None),
        ("run_events", lambda: bool(call("run_events", **history, after_seq=0, limit=10))),
        ("run_operations", lambda: bool(call("run_operations", **run))),
        (
            "transition_run",
            lambda: (
                call("transition_run", **run, expected_version=t["version"], to_status="cancelled")
                is not None
            ),
        ),
        (
            "save_checkpoint",
            lambda: (
                call(
                    "save_checkpoint",
                    **fenced,
                    seq=50,
                    parent_seq=None,
                    state_schema_version=1,
                    next_nodes=[],
                    completed_nodes=[],
                    payload=Jsonb({}),
                    payload_ref=None,
                    payload_bytes=None,
                    payload_sha256=None,
                )
                is not None
            ),
        ),
        (
            "append_event",
            lambda: (
                call(
                    "append_event",
                    **fenced,
                    seq=50,
                    kind="probe",
                    actor="system",
                    policy_version=None,
                    payload=Jsonb({}),
                )
                is not None
            ),
        ),
        (
            "reserve_operation",
            lambda: (
                call(
                    "reserve_operation",
                    **fenced,
                    idempotency_key=f"probe-{t['run_id']}",
                    input_hash=b"\2" * 32,
                )
                is not None
            ),
        ),
        (
            "complete_operation",
            lambda: (
                call(
                    "complete_operation",
                    **scope,
                    idempotency_key=t["key"],
                    run_id=t["run_id"],
                    fencing_token=t["fencing_token"],
                    status="failed",
                    result=None,
                )
                is not None
            ),
        ),
    ]


def _global_probes(w: WorkerContext, a: Any, scope: dict[str, Any]) -> list[Probe]:
    rt = w.runtime(a)
    column = w.tenant_column or ""
    now = datetime.now(UTC)

    def foreign(rows: list[Row]) -> bool:
        return any(row[column] != a for row in rows)

    found: list[Probe] = [
        ("events_since", lambda: foreign(rt.call("events_since", **scope, after_id=0, limit=10000))),
        (
            "events_in_window",
            lambda: foreign(
                rt.call(
                    "events_in_window",
                    **scope,
                    window_start=now - timedelta(hours=1),
                    window_end=now + timedelta(hours=1),
                )
            ),
        ),
    ]
    if w.rls:
        found.append(
            (
                "claim_run",
                lambda: (
                    rt.call(
                        "claim_run", **scope, worker_id="probe", lease_token=w.new_token(), lease_seconds=60
                    )
                    not in (None,)
                    and scope[column] != a
                ),
            )
        )
    return found


def _own_namespace(w: WorkerContext, own: Row, key: str) -> Callable[[], bool]:
    """B's idempotency key used by A: a new reservation in A's namespace, never B's result."""

    def probe() -> bool:
        reserved = w.runtime(steps.tenant_of(w, own)).call(
            "reserve_operation",
            **steps.fence(w, own, lease=False),
            idempotency_key=key,
            input_hash=b"\1" * 32,
        )
        return reserved is None or not reserved["inserted"] or reserved["result"] is not None

    return probe
