"""queries.sql on real PostgreSQL: every query runs through aiosql + psycopg, for every
lock strategy, and the guarantees that could break are tried on the database."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import psycopg
import pytest
from profiles import example_profiles, with_strategy, with_version
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.runtime import Runtime
from agentddl.generator.model import derive
from agentddl.generator.profile import LockStrategy, Profile

PROFILES = example_profiles()
Row = dict[str, Any]
Conn = psycopg.Connection[Row]


def scenario_profiles() -> dict[str, Profile]:
    found = {s.value: with_strategy(PROFILES["default"], s) for s in LockStrategy}
    found["single-tenant"] = PROFILES["single-tenant"]
    found["rls"] = PROFILES["newest-engine"]
    return found


SCENARIOS = scenario_profiles()


class Session:
    """One database with the schema applied and queries.sql loaded (agentddl.checks.db.runtime,
    the same runtime the live checks use); calls are recorded."""

    def __init__(self, dsn: str, profile: Profile) -> None:
        model = derive(profile)
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, model)
        self.profile = profile
        self.schema = model.schema
        self.all_names = {p.name for p in model.access_paths}
        self.called: set[str] = set()
        self.conn: Conn = psycopg.connect(dsn, autocommit=True, row_factory=dict_row)
        self.tenant: dict[str, Any] = {}
        if profile.tenancy.column:
            self.tenant = {profile.tenancy.column: uuid.uuid4()}
            self.sql(f"INSERT INTO {self.schema}.tenants VALUES (%s, 'acme')", *self.tenant.values())
        self.runtime = Runtime(model, self.conn, tenant=next(iter(self.tenant.values()), None))

    def __call__(self, name: str, conn: Conn | None = None, **params: Any) -> Any:
        """Run a query as the role that runs it in production: grants and RLS apply."""
        self.called.add(name)
        return self.runtime.on(conn or self.conn).call(name, **params)

    def sql(self, statement: str, *args: Any) -> list[Row]:
        cursor = self.conn.execute(statement.encode(), args)
        return cursor.fetchall() if cursor.description else []

    @property
    def claim_scope(self) -> dict[str, Any]:
        return self.tenant if self.profile.tenancy.row_level_security else {}

    def start(self, key: str, priority: int = 0, parent: uuid.UUID | None = None) -> Row:
        row: Row = self(
            "start_run",
            **self.tenant,
            run_key=key,
            parent_run_id=parent,
            kind="demo",
            input=Jsonb({"key": key}),
            priority=priority,
            trace_id=None,
        )
        return row

    def claim(self, worker: str, conn: Conn | None = None) -> Row | None:
        row: Row | None = self(
            "claim_run",
            conn,
            **self.claim_scope,
            worker_id=worker,
            lease_token=f"token-{worker}",
            lease_seconds=30,
        )
        if row is not None:
            row["lease_token"] = f"token-{worker}"
        return row

    def fence(self, claim: Row, worker: str) -> dict[str, Any]:
        return {
            **self.tenant,
            "run_id": claim["run_id"],
            "fencing_token": claim["fencing_token"],
            "lease_token": f"token-{worker}",
        }

    def run(self, run_id: uuid.UUID) -> Row:
        row: Row = self("get_run", **self.tenant, run_id=run_id)
        return row

    def backdate_lease(self, run_id: uuid.UUID) -> None:
        """The lease ran out a minute ago: the live row's visible_at (the lease) and the
        attempt's record of it."""
        self.sql(
            f"UPDATE {self.schema}.run_queue SET visible_at = now() - interval '1 minute' "
            "WHERE run_id = %s AND state = 'running'",
            run_id,
        )
        self.sql(
            f"UPDATE {self.schema}.attempts SET started_at = now() - interval '2 minutes', "
            "lease_expires_at = now() - interval '1 minute' "
            "WHERE run_id = %s AND status = 'active'",
            run_id,
        )

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(params=sorted(SCENARIOS))
def runtime(request: pytest.FixtureRequest, pg_server: PostgresServer, scratch_dsn: str) -> Iterator[Session]:
    runtime = Session(scratch_dsn, with_version(SCENARIOS[request.param], pg_server.version))
    yield runtime
    runtime.close()


def test_every_query_runs_and_keeps_its_guarantees(runtime: Session) -> None:
    if "set_tenant" in runtime.all_names:  # row-level security: the runtime names it per transaction
        assert runtime("set_tenant", **runtime.tenant) == str(runtime.tenant[runtime.profile.tenancy.column])
    root, child = starting_runs(runtime)
    first, second = claiming(runtime, root["run_id"], child["run_id"])
    writing_history(runtime, first, "root")
    side_effects(runtime, first, "root")
    outbox(runtime, first)
    taken_over = lease_expiry(runtime, first)
    finishing(runtime, taken_over, second)
    maintenance(runtime, root["run_id"])
    model_parts(runtime)
    batches(runtime)
    assert runtime.called == runtime.all_names


def starting_runs(rt: Session) -> tuple[Row, Row]:
    root = rt.start("root", priority=5)
    assert root["inserted"] is True and root["status"] == "queued" and root["version"] == 1
    again = rt.start("root", priority=5)
    assert again["inserted"] is False and again["run_id"] == root["run_id"]
    child = rt.start("child", parent=root["run_id"])
    assert child["inserted"] is True
    children = rt("child_runs", **rt.tenant, parent_run_id=root["run_id"])
    assert [c["run_id"] for c in children] == [child["run_id"]]
    assert rt.run(root["run_id"])["status"] == "queued"
    return root, child


def claiming(rt: Session, root_id: uuid.UUID, child_id: uuid.UUID) -> tuple[Row, Row]:
    assert rt("expire_leases", batch_size=10) == []
    first = rt.claim("w1")
    assert first is not None and first["run_id"] == root_id  # higher priority first
    assert (first["attempt_no"], first["fencing_token"], first["version"]) == (1, 1, 2)
    assert first["last_checkpoint_seq"] is None
    second = rt.claim("w2")
    assert second is not None and second["run_id"] == child_id
    assert rt.claim("w3") is None  # both runs have a live attempt: nothing to claim
    current = rt("current_attempt", **rt.tenant, run_id=root_id)
    assert (current["attempt_no"], current["worker_id"], current["lease_live"]) == (1, "w1", True)
    assert rt("heartbeat", **rt.fence(first, "w1"), lease_seconds=60) > datetime.now().astimezone()
    assert rt("heartbeat", **{**rt.fence(first, "w1"), "lease_token": "stolen"}, lease_seconds=60) is None
    stale = {**rt.fence(first, "w1"), "fencing_token": 0}
    assert rt("heartbeat", **stale, lease_seconds=60) is None
    return first, second


def checkpoint(
    rt: Session, claim: Row, seq: int, token: int | None = None, lease: str | None = None
) -> Row | None:
    row: Row | None = rt(
        "save_checkpoint",
        **rt.tenant,
        run_id=claim["run_id"],
        fencing_token=claim["fencing_token"] if token is None else token,
        lease_token=claim["lease_token"] if lease is None else lease,
        parent_seq=seq - 1 or None,
        state_schema_version=1,
        next_nodes=["plan"],
        completed_nodes=[],
        metadata=Jsonb({"pending": "approval", "code_version": "v3"}),
        payload=Jsonb({"step": seq}),
        payload_ref=None,
        payload_bytes=None,
        payload_sha256=None,
    )
    return row


def event(
    rt: Session, claim: Row, seq: int, token: int | None = None, lease: str | None = None
) -> Row | None:
    row: Row | None = rt(
        "append_event",
        **rt.tenant,
        run_id=claim["run_id"],
        fencing_token=claim["fencing_token"] if token is None else token,
        lease_token=claim["lease_token"] if lease is None else lease,
        kind="step.started",
        actor="agent:planner",
        policy_version=None,
        payload=Jsonb({"n": seq}),
    )
    return row


def writing_history(rt: Session, claim: Row, _name: str) -> None:
    saved = checkpoint(rt, claim, 1)
    assert saved is not None and saved["seq"] == 1
    assert saved["run_created_at"] == claim["run_created_at"]
    assert checkpoint(rt, claim, 2, token=claim["fencing_token"] - 1) is None
    assert checkpoint(rt, claim, 2, lease="guessed") is None  # the right fencing token is not enough
    latest = rt(
        "latest_checkpoint", **rt.tenant, run_id=claim["run_id"], run_created_at=claim["run_created_at"]
    )
    assert latest["seq"] == 1 and latest["payload"] == {"step": 1}
    assert latest["payload_sha256"] == hashlib.sha256(b'{"step": 1}').digest()
    assert latest["metadata"] == {"pending": "approval", "code_version": "v3"}  # what resuming needs
    appended = event(rt, claim, 1)
    assert appended is not None and appended["seq"] == 2  # 1: the claim's own attempt.started
    assert event(rt, claim, 2, token=claim["fencing_token"] + 5) is None
    assert event(rt, claim, 2, lease="guessed") is None
    again = event(rt, claim, 2)  # the live row's counter: refused writers took no number
    assert again is not None and again["seq"] == 3
    history = rt(
        "run_events",
        **rt.tenant,
        run_id=claim["run_id"],
        run_created_at=claim["run_created_at"],
        after_seq=0,
        limit=10,
    )
    assert [(e["seq"], e["kind"]) for e in history] == [
        (1, "attempt.started"),
        (2, "step.started"),
        (3, "step.started"),
    ]
    since = [e["event_id"] for e in rt("events_since", **rt.tenant, after_id=0, limit=10)]
    assert since == sorted(since) and since[-2:] == [appended["event_id"], again["event_id"]]
    assert rt("events_since", **rt.tenant, after_id=again["event_id"], limit=10) == []
    now = datetime.now().astimezone()
    window = rt(
        "events_in_window",
        **rt.tenant,
        window_start=now - timedelta(hours=1),
        window_end=now + timedelta(hours=1),
    )
    assert {appended["event_id"], again["event_id"]} <= {e["event_id"] for e in window}


def reserve(
    rt: Session, claim: Row, key: str, data: bytes, token: int | None = None, lease: str | None = None
) -> Row | None:
    row: Row | None = rt(
        "reserve_operation",
        **rt.tenant,
        run_id=claim["run_id"],
        fencing_token=claim["fencing_token"] if token is None else token,
        lease_token=claim["lease_token"] if lease is None else lease,
        idempotency_key=key,
        input_hash=hashlib.sha256(data).digest(),
    )
    return row


def record(
    rt: Session, claim: Row, key: str, status: str, result: Jsonb | None, lease: str | None = None
) -> Row | None:
    row: Row | None = rt(
        "complete_operation",
        **rt.tenant,
        idempotency_key=key,
        run_id=claim["run_id"],
        fencing_token=claim["fencing_token"],
        lease_token=claim["lease_token"] if lease is None else lease,
        status=status,
        result=result,
    )
    return row


def side_effects(rt: Session, claim: Row, _name: str) -> None:
    new = reserve(rt, claim, "charge-1", b"amount=10")
    assert new is not None and (new["inserted"], new["same_input"], new["owned"]) == (True, True, True)
    assert reserve(rt, claim, "charge-2", b"x", token=claim["fencing_token"] - 1) is None
    assert reserve(rt, claim, "charge-2", b"x", lease="guessed") is None
    repeat = reserve(rt, claim, "charge-1", b"amount=10")
    assert repeat is not None and (repeat["inserted"], repeat["status"]) == (False, "pending")
    forged = record(rt, claim, "charge-1", "succeeded", Jsonb({"id": "forged"}), lease="guessed")
    assert forged is None  # the reservation's fencing token is not enough either
    done = record(rt, claim, "charge-1", "succeeded", Jsonb({"id": "ch_1"}))
    assert done["status"] == "succeeded"
    again = record(rt, claim, "charge-1", "failed", None)
    assert again is None  # recorded once
    earlier = reserve(rt, claim, "charge-1", b"amount=10")
    assert earlier is not None and earlier["inserted"] is False and earlier["same_input"] is True
    assert (earlier["status"], earlier["result"]) == ("succeeded", {"id": "ch_1"})
    conflict = reserve(rt, claim, "charge-1", b"amount=99")
    assert conflict is not None and conflict["same_input"] is False
    assert conflict["result"] == {"id": "ch_1"}  # the caller must refuse, not reuse it
    operations = rt("run_operations", **rt.tenant, run_id=claim["run_id"])
    assert [o["idempotency_key"] for o in operations] == ["charge-1"]


def outbox(rt: Session, claim: Row) -> None:
    message_id = rt(
        "enqueue_outbox", **rt.tenant, run_id=claim["run_id"], topic="run.step", payload=Jsonb({"seq": 1})
    )
    first = rt("relay_claim", relay_id="relay-a", claim_seconds=30, batch_size=10)
    assert [(m["message_id"], m["delivery_attempts"]) for m in first] == [(message_id, 1)]
    assert rt("relay_claim", relay_id="relay-b", claim_seconds=30, batch_size=10) == []
    lag = rt("health_outbox_lag")
    assert lag["pending"] == 1
    rt.sql(f"UPDATE {rt.schema}.outbox SET claimed_until = now() - interval '1 second'")
    back = rt("relay_claim", relay_id="relay-b", claim_seconds=30, batch_size=10)
    assert [(m["message_id"], m["delivery_attempts"]) for m in back] == [(message_id, 2)]
    key = {**rt.tenant, "message_id": message_id}
    assert rt("mark_delivered", **key, relay_id="relay-a") == 0  # its claim lapsed
    assert rt("mark_delivered", **key, relay_id="relay-b") == 1
    assert rt("health_outbox_lag")["pending"] == 0
    dead_letter(rt, claim)


def dead_letter(rt: Session, claim: Row) -> None:
    """A message the consumer refuses: backed off, then dead-lettered after max_attempts;
    listed, counted, requeued."""
    message_id = rt("enqueue_outbox", **rt.tenant, run_id=claim["run_id"], topic="poison", payload=Jsonb({}))
    rt.sql(f"UPDATE {rt.schema}.outbox SET max_attempts = 2 WHERE message_id = %s", message_id)
    key = {**rt.tenant, "message_id": message_id}
    refusal = {"error": "consumer said 400", "backoff_seconds": 30}
    assert [m["message_id"] for m in rt("relay_claim", relay_id="r", claim_seconds=30, batch_size=10)] == [
        message_id
    ]
    assert rt("fail_delivery", **key, relay_id="not-the-holder", **refusal) is None
    first = rt("fail_delivery", **key, relay_id="r", **refusal)
    assert first["dead"] is False and first["available_at"] > datetime.now().astimezone() + timedelta(
        seconds=20
    )
    assert rt("relay_claim", relay_id="r", claim_seconds=30, batch_size=10) == []  # backing off
    rt.sql(f"UPDATE {rt.schema}.outbox SET available_at = now() WHERE message_id = %s", message_id)
    assert len(rt("relay_claim", relay_id="r", claim_seconds=30, batch_size=10)) == 1
    second = rt("fail_delivery", **key, relay_id="r", **refusal)
    assert second["dead"] is True and second["delivery_attempts"] == 2
    rt.sql(f"UPDATE {rt.schema}.outbox SET available_at = now() WHERE message_id = %s", message_id)
    assert rt("relay_claim", relay_id="r", claim_seconds=30, batch_size=10) == []  # never again
    assert [m["last_error"] for m in rt("dead_letters", limit=10)] == ["consumer said 400"]
    assert rt("health_dead_letters")["dead_letters"] == 1
    assert rt("health_outbox_lag")["pending"] == 0  # a dead letter is not lag
    assert rt("requeue_dead_letter", **key) == message_id
    again = rt("relay_claim", relay_id="r", claim_seconds=30, batch_size=10)
    assert [(m["message_id"], m["delivery_attempts"]) for m in again] == [(message_id, 1)]
    assert rt("mark_delivered", **key, relay_id="r") == 1
    assert rt("health_dead_letters")["dead_letters"] == 0


def lease_expiry(rt: Session, old: Row) -> Row:
    assert rt("health_expired_leases")["expired_leases"] == 0
    orphaned = reserve(rt, old, "send-mail", b"to=a")  # the old worker dies holding it
    assert orphaned is not None and orphaned["inserted"] is True
    assert rt.run(old["run_id"])["effective_status"] == "running"
    rt.backdate_lease(old["run_id"])
    expired_leases = rt("health_expired_leases")
    assert (expired_leases["expired_leases"], expired_leases["attempts_spent"]) == (1, 0)
    lapsed = rt.run(old["run_id"])
    assert (lapsed["status"], lapsed["effective_status"]) == ("running", "claimable")  # no sweep needed
    assert rt("heartbeat", **rt.fence(old, "w1"), lease_seconds=60) is None  # expired: lost
    new = rt.claim("w4")  # takes the lapsed run over in the claim itself
    assert new is not None and new["run_id"] == old["run_id"]
    assert (new["attempt_no"], new["fencing_token"]) == (2, 2)
    # events 1-3 were the first attempt's; the takeover logged 4 attempt.expired, 5 attempt.started
    assert (new["last_checkpoint_seq"], new["last_event_seq"]) == (1, 5)
    # The old worker wakes up: every write it tries is fenced off.
    assert checkpoint(rt, old, 2) is None
    assert event(rt, old, 2) is None
    assert reserve(rt, old, "charge-3", b"y") is None
    assert rt("complete_attempt", **rt.fence(old, "w1"), result=Jsonb({})) is None
    assert checkpoint(rt, new, 2) is not None
    taken = reserve(rt, new, "send-mail", b"to=a")
    assert taken is not None and (taken["inserted"], taken["status"], taken["owned"]) == (
        False,
        "pending",
        True,
    )
    late = record(rt, old, "send-mail", "succeeded", None)
    assert late is None  # the reservation moved to the new attempt
    history = rt.sql(
        f"SELECT attempt_no, status, interruption_reason FROM {rt.schema}.attempts "
        "WHERE run_id = %s ORDER BY attempt_no",
        old["run_id"],
    )
    assert [tuple(h.values()) for h in history] == [(1, "expired", "lease_expired"), (2, "active", None)]
    assert rt.run(old["run_id"])["effective_status"] == "running"
    return new


def finishing(rt: Session, root: Row, child: Row) -> None:
    version = rt.run(root["run_id"])["version"]
    assert (
        rt(
            "transition_run",
            **rt.tenant,
            run_id=root["run_id"],
            expected_version=version - 1,
            to_status="cancelled",
        )
        is None
    )
    assert rt.run(root["run_id"])["version"] == version  # nothing changed
    done = rt("complete_attempt", **rt.fence(root, "w4"), result=Jsonb({"answer": 42}))
    assert done["run_status"] == "succeeded" and done["run_version"] == version + 1
    assert (
        rt(
            "transition_run",
            **rt.tenant,
            run_id=root["run_id"],
            expected_version=version + 1,
            to_status="queued",
        )
        is None
    )  # succeeded -> anything: refused
    failed = rt(
        "fail_attempt", **rt.fence(child, "w2"), error="tool timed out", retryable=True, backoff_seconds=60
    )
    assert failed["run_status"] == "queued" and failed["wake_at"] > datetime.now().astimezone()
    if rt.profile.model.details:  # the run keeps its last failure's error
        error = rt.sql(f"SELECT error FROM {rt.schema}.runs WHERE run_id = %s", child["run_id"])[0]["error"]
        assert error == "tool timed out"
    assert rt.claim("w5") is None  # backing off
    waiting = rt(
        "transition_run",
        **rt.tenant,
        run_id=child["run_id"],
        expected_version=failed["run_version"],
        to_status="waiting",
    )
    assert waiting == failed["run_version"] + 1
    requeued = rt(
        "transition_run", **rt.tenant, run_id=child["run_id"], expected_version=waiting, to_status="queued"
    )
    again = rt.claim("w6")
    assert again is not None and again["run_id"] == child["run_id"] and again["version"] == requeued + 1
    interrupted = rt("interrupt_attempt", **rt.fence(again, "w6"), reason="worker_shutdown")
    assert interrupted["run_status"] == "queued"
    last = rt.claim("w7")
    assert last is not None and last["run_id"] == child["run_id"]
    cancelled = rt(
        "transition_run",
        **rt.tenant,
        run_id=child["run_id"],
        expected_version=last["version"],
        to_status="cancelled",
    )
    assert cancelled == last["version"] + 1
    assert rt("heartbeat", **rt.fence(last, "w7"), lease_seconds=60) is None  # attempt ended
    assert (
        rt(
            "transition_run",
            **rt.tenant,
            run_id=child["run_id"],
            expected_version=cancelled,
            to_status="running",
        )
        is None
    )  # cancelled -> running: refused


def maintenance(rt: Session, root_id: uuid.UUID) -> None:
    stuck_key = rt.start("stuck")
    rt("transition_run", **rt.tenant, run_id=stuck_key["run_id"], expected_version=1, to_status="waiting")
    stuck = rt("health_stuck_runs", stale_seconds=0, limit=10)
    assert [s["run_id"] for s in stuck] == [stuck_key["run_id"]]
    rt.sql(f"UPDATE {rt.schema}.outbox SET delivered_at = now() - interval '400 days'")
    assert rt("purge_outbox", batch_size=100) == 2  # run.step, and the requeued dead letter
    rt.sql(
        f"UPDATE {rt.schema}.runs SET finished_at = now() - interval '400 days' WHERE finished_at IS NOT NULL"
    )
    assert rt("purge_finished_runs", batch_size=100) == 2  # the root and its cancelled child
    assert rt.run(root_id) is None
    assert rt.sql(f"SELECT count(*) AS n FROM {rt.schema}.events")[0]["n"] == 0  # cascaded
    rt("maintain_partitions")  # CALL: commits step by step (an autocommit connection)
    runway = rt("health_partition_runway")
    assert [r["table_name"] for r in runway] == ["checkpoints", "events"]
    assert all(r["ok"] and r["future_partitions"] >= r["wanted_runway"] for r in runway)


def batches(rt: Session) -> None:
    """claim_runs takes several visible runs in one statement, complete_attempts finishes
    them in one; a stale element is left out, the others complete."""
    started = [rt.start(f"batch-{n}", priority=20)["run_id"] for n in range(3)]
    claimed = rt(
        "claim_runs", **rt.claim_scope, worker_id="wb", lease_token="token-wb", lease_seconds=30, batch_size=2
    )
    assert len(claimed) == 2 and {c["run_id"] for c in claimed} < set(started)
    assert all(c["attempt_no"] == 1 and c["last_event_seq"] == 1 for c in claimed)
    column = rt.profile.tenancy.column
    keys = {f"{column}s": [c[column] for c in claimed]} if column else {}
    if rt.profile.tenancy.row_level_security:  # one tenant's claims: one tenant's batch
        keys = rt.claim_scope
    tokens = [c["fencing_token"] for c in claimed]
    done = rt(
        "complete_attempts",
        **keys,
        run_ids=[c["run_id"] for c in claimed],
        fencing_tokens=[tokens[0], tokens[1] + 1],  # the second is stale: left out
        lease_tokens=["token-wb", "token-wb"],
        results=[Jsonb({"n": 0}), Jsonb({"n": 1})],
    )
    assert [(d["run_id"], d["run_status"]) for d in done] == [(claimed[0]["run_id"], "succeeded")]
    assert rt.run(claimed[1]["run_id"])["effective_status"] == "running"


def model_parts(rt: Session) -> None:
    """The optional parts (all on in these profiles): a session's run, its nodes and tool
    calls, an approval, and the state changes that write their event in one statement."""
    session = uuid.uuid4()
    started = rt(
        "start_session_run", **rt.tenant, run_key="in-session", parent_run_id=None, kind="chat",
        input=Jsonb({}), priority=9, trace_id=None, user_id="user-1", session_id=session,
        workflow_version="chat@3", span_id="00f067aa0ba902b7",
    )
    listed = rt("session_runs", **rt.tenant, session_id=session, limit=10)
    assert [r["run_id"] for r in listed] == [started["run_id"]] and "input" not in listed[0]
    claim = rt.claim("w8")
    assert claim is not None and claim["run_id"] == started["run_id"]
    details(rt, claim)
    notes(rt, claim)
    nodes(rt, claim)
    approval = approvals(rt, claim)
    version = rt.run(claim["run_id"])["version"]
    wait = {**rt.tenant, "run_id": claim["run_id"], "to_status": "waiting", "actor": "agent:planner"}
    assert rt("transition_run_with_event", **wait, expected_version=version - 1) is None
    moved = rt("transition_run_with_event", **wait, expected_version=version)
    assert moved["version"] == version + 1 and moved["event_seq"] == 2  # 1: attempt.started
    decision = {**rt.tenant, "run_id": claim["run_id"], "approval_id": approval, "decided_by": "ana"}
    decided = rt("decide_approval", **decision, decision="approved", decision_note="ok")
    assert (decided["status"], decided["event_seq"]) == ("approved", 3)
    assert rt("decide_approval", **decision, decision="rejected", decision_note=None) is None  # once
    assert rt("pending_approvals", **rt.tenant, limit=10) == []
    events = rt(
        "run_events", **rt.tenant, run_id=claim["run_id"], run_created_at=claim["run_created_at"],
        after_seq=0, limit=10,
    )
    assert [(e["kind"], e["actor"]) for e in events] == [
        ("attempt.started", "system"), ("run.waiting", "agent:planner"), ("approval.approved", "user:ana")
    ]


def details(rt: Session, claim: Row) -> None:
    """The seeds' descriptive columns: set by start, the first claim, record_step and
    describe_operation; the fenced writers refuse a stale or forged caller."""
    fence = rt.fence(claim, "w8")
    version = rt.run(claim["run_id"])["version"]
    assert rt("record_step", **{**fence, "fencing_token": 0}, current_step="plan") is None
    assert rt("record_step", **fence, current_step="plan")["current_step"] == "plan"
    assert rt.run(claim["run_id"])["version"] == version  # a description, not a state change
    key = f"described-{claim['run_id']}"
    assert rt("reserve_operation", **fence, idempotency_key=key, input_hash=b"\3" * 32)["inserted"]
    described = {"action": "send_email", "provider_reference": "msg-42", "trace_id": None, "span_id": None}
    op = {
        **rt.tenant,
        "idempotency_key": key,
        "run_id": claim["run_id"],
        "fencing_token": claim["fencing_token"],
    }
    assert rt("describe_operation", **op, lease_token="guessed", **described) is None
    assert (
        rt("describe_operation", **op, lease_token=fence["lease_token"], **described)["action"]
        == "send_email"
    )
    kept = rt("describe_operation", **op, lease_token=fence["lease_token"], **{**described, "action": None})
    assert (kept["action"], kept["provider_reference"]) == ("send_email", "msg-42")  # null keeps it
    stored = rt.sql(
        f"SELECT workflow_version, span_id, current_step, started_at IS NOT NULL AS started "
        f"FROM {rt.schema}.runs WHERE run_id = %s",
        claim["run_id"],
    )[0]
    assert stored == {
        "workflow_version": "chat@3",
        "span_id": "00f067aa0ba902b7",
        "current_step": "plan",
        "started": True,
    }


def notes(rt: Session, claim: Row) -> None:
    """Attempt notes: appended under the caller's attempt, fenced, numbered per attempt,
    bounded, and read back newest first."""
    fence = rt.fence(claim, "w8")
    forged = {**fence, "lease_token": "guessed"}
    assert rt("append_attempt_note", **forged, note_kind="progress", body="x") is None
    first = rt("append_attempt_note", **fence, note_kind="progress", body="read the repo layout")
    second = rt("append_attempt_note", **fence, note_kind="finding", body="tests need PostgreSQL 16")
    assert (first["attempt_no"], first["note_no"], second["note_no"]) == (claim["attempt_no"], 1, 2)
    with pytest.raises(psycopg.errors.CheckViolation):
        rt("append_attempt_note", **fence, note_kind="transcript", body="x")
    with pytest.raises(psycopg.errors.CheckViolation):
        rt("append_attempt_note", **fence, note_kind="warning", body="x" * 1001)
    listed = rt("run_attempt_notes", **rt.tenant, run_id=claim["run_id"], limit=10)
    assert [(n["note_no"], n["kind"]) for n in listed] == [(2, "finding"), (1, "progress")]
    assert rt("run_attempt_notes", **rt.tenant, run_id=claim["run_id"], limit=1)[0]["note_no"] == 2


def nodes(rt: Session, claim: Row) -> None:
    fence = rt.fence(claim, "w8")
    first = rt("start_node", **fence, node_id="plan")
    assert first["attempt"] == 1
    assert rt("start_node", **{**fence, "lease_token": "guessed"}, node_id="plan") is None
    end = {"node_id": "plan", "output": Jsonb({"ok": False}), "error": "model timed out"}
    assert rt("finish_node", **fence, attempt=1, status="failed", **end)["status"] == "failed"
    assert rt("finish_node", **fence, attempt=1, status="succeeded", **end) is None  # ended once
    assert rt("start_node", **fence, node_id="plan")["attempt"] == 2  # the node's retry
    call = {"node_id": "plan", "node_attempt": 2, "call_no": 1}
    recorded = rt("record_tool_call", **fence, **call, tool="search", idempotency_key=None, input=Jsonb({}))
    assert recorded["call_no"] == 1
    with pytest.raises(psycopg.errors.UniqueViolation):
        rt("record_tool_call", **fence, **call, tool="search", idempotency_key=None, input=Jsonb({}))
    result = {"status": "succeeded", "result": Jsonb({"hits": 3}), "error": None}
    assert rt("complete_tool_call", **{**fence, "lease_token": "guessed"}, **call, **result) is None
    assert rt("complete_tool_call", **fence, **call, **result)["status"] == "succeeded"
    listed = rt("node_tool_calls", **rt.tenant, run_id=claim["run_id"], node_id="plan", node_attempt=2)
    assert [(t["call_no"], t["status"]) for t in listed] == [(1, "succeeded")] and "result" not in listed[0]
    latest = rt("node_execution", **rt.tenant, run_id=claim["run_id"], node_id="plan")
    assert (latest["attempt"], latest["status"]) == (2, "running")
    every = rt("run_node_executions", **rt.tenant, run_id=claim["run_id"])
    assert [(n["attempt"], n["status"]) for n in every] == [(1, "failed"), (2, "running")]
    assert "output" not in every[0]


def approvals(rt: Session, claim: Row) -> uuid.UUID:
    fence = rt.fence(claim, "w8")
    ask = {"node_id": "plan", "request": Jsonb({"action": "refund"}), "requested_by": "worker-w8"}
    assert rt("request_approval", **{**fence, "fencing_token": 0}, **ask) is None
    asked = rt("request_approval", **fence, **ask)
    pending = rt("pending_approvals", **rt.tenant, limit=10)
    assert [p["approval_id"] for p in pending] == [asked["approval_id"]] and "request" not in pending[0]
    listed = rt("run_approvals", **rt.tenant, run_id=claim["run_id"])
    assert [a["status"] for a in listed] == ["pending"]
    approval: uuid.UUID = asked["approval_id"]
    return approval


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_two_workers_racing_never_share_a_run(
    pg_server: PostgresServer, scratch_dsn: str, strategy: LockStrategy
) -> None:
    rt = Session(scratch_dsn, with_version(with_strategy(PROFILES["default"], strategy), pg_server.version))
    for key in ("one", "two"):
        rt.start(key)
    with psycopg.connect(scratch_dsn, row_factory=dict_row) as holder:
        first = rt.claim("a", conn=holder)  # claimed, not yet committed
        assert first is not None
        if strategy is LockStrategy.advisory:  # only the claimed run's lock is held
            held = rt.sql(
                "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
                holder.info.backend_pid,
            )
            assert held == [{"n": 1}]
        blocks = strategy in (LockStrategy.lease, LockStrategy.optimistic)
        second = racing_claim(rt, scratch_dsn, holder, blocks)
    if strategy in (LockStrategy.skip_locked, LockStrategy.advisory):
        assert second is not None  # these skip a held run instead of waiting or losing
    assert second is None or second["run_id"] != first["run_id"]
    active = rt.sql(
        f"SELECT run_id, count(*) AS n FROM {rt.schema}.attempts WHERE status = 'active' GROUP BY run_id"
    )
    assert all(row["n"] == 1 for row in active)
    assert len(active) == (1 if second is None else 2)
    rt.close()


def racing_claim(rt: Session, dsn: str, holder: Conn, blocks: bool) -> Row | None:
    """A second worker claims while `holder` is still in its transaction; when the claim
    `blocks` on holder's locks, holder commits only once it is really waiting."""
    result: dict[str, Row | None] = {}

    def claim() -> None:
        with psycopg.connect(dsn, autocommit=True, row_factory=dict_row) as conn:
            result["b"] = rt.claim("b", conn=conn)

    worker = threading.Thread(target=claim)
    worker.start()
    if blocks:
        wait_until_blocked(rt)
    else:
        worker.join(10)
    holder.commit()
    worker.join(10)
    assert not worker.is_alive()
    return result["b"]


def wait_until_blocked(rt: Session) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        waiting = rt.sql(
            "SELECT count(*) AS n FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if waiting[0]["n"]:
            return
        time.sleep(0.01)
    raise AssertionError("the racing claim never waited for the holder's lock")


def test_pg_partman_maintenance_query(pg_servers: Any) -> None:
    server = pg_servers.get(15)
    assert server.has_extension("pg_partman"), "make test installs postgresql-15-partman"
    with server.scratch_database() as dsn:
        rt = Session(dsn, PROFILES["partman"])
        maintained = rt("maintain_partitions")
        assert [m["partition_name"] for m in maintained] == ["agent.checkpoints", "agent.events"]
        runway = rt("health_partition_runway")
        assert all(r["ok"] for r in runway), runway
        rt.close()


def test_runs_out_of_attempts_fail_instead_of_requeueing(pg_server: PostgresServer, scratch_dsn: str) -> None:
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    for key in ("retry-exhausted", "not-retryable", "expired-last"):
        rt.start(key)
    rt.sql(f"UPDATE {rt.schema}.runs SET max_attempts = 1")
    rt.sql(f"UPDATE {rt.schema}.run_queue SET max_attempts = 1")  # the live row's copy
    exhausted, fatal, expiring = rt.claim("a"), rt.claim("b"), rt.claim("c")
    assert exhausted and fatal and expiring
    out = rt("fail_attempt", **rt.fence(exhausted, "a"), error="boom", retryable=True, backoff_seconds=1)
    assert out["run_status"] == "failed"
    fatal_out = rt(
        "fail_attempt", **rt.fence(fatal, "b"), error="bad input", retryable=False, backoff_seconds=1
    )
    assert fatal_out["run_status"] == "failed"
    rt.backdate_lease(expiring["run_id"])
    assert rt.claim("d") is None  # its attempts are spent: no takeover
    assert rt.run(expiring["run_id"])["effective_status"] == "failed"  # what readers see already
    assert rt("health_expired_leases")["attempts_spent"] == 1
    expired = rt("expire_leases", batch_size=10)  # housekeeping records it
    assert [e["run_status"] for e in expired] == ["failed"]
    finished = rt.sql(f"SELECT count(*) AS n FROM {rt.schema}.runs WHERE finished_at IS NOT NULL")
    assert finished == [{"n": 3}]
    rt.close()


def test_a_state_change_before_the_first_claim_is_counted_by_the_claim(
    pg_server: PostgresServer, scratch_dsn: str
) -> None:
    """transition_run_with_event writes events without a lease: the first claim must still
    report the run's last event, or the worker's next event collides with it."""
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    run = rt.run(rt.start("waits-first")["run_id"])
    change = {**rt.tenant, "run_id": run["run_id"], "actor": "user:ana"}
    held = rt("transition_run_with_event", **change, to_status="waiting", expected_version=run["version"])
    back = rt("transition_run_with_event", **change, to_status="queued", expected_version=held["version"])
    assert back["event_seq"] == 2
    claim = rt.claim("a")
    assert claim is not None and claim["attempt_no"] == 1 and claim["last_event_seq"] == 3  # its own: 3
    appended = event(rt, claim, claim["last_event_seq"] + 1)
    assert appended is not None and appended["seq"] == 4
    rt.close()


def test_the_transition_guard_refuses_what_the_queries_never_do(
    pg_server: PostgresServer, scratch_dsn: str
) -> None:
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    run = rt.start("guarded")
    with pytest.raises(psycopg.errors.CheckViolation, match="queued -> succeeded"):
        rt.sql(
            f"UPDATE {rt.schema}.runs SET status = 'succeeded', finished_at = now(), "
            "version = version + 1 WHERE run_id = %s",
            run["run_id"],
        )
    with pytest.raises(psycopg.errors.CheckViolation, match="must bump version"):
        rt.sql(
            f"UPDATE {rt.schema}.runs SET status = 'cancelled', finished_at = now() WHERE run_id = %s",
            run["run_id"],
        )
    rt.close()


@pytest.mark.parametrize("moved_to", ["waiting", "cancelled"])
def test_lease_claim_losing_to_a_transition_leaves_no_stuck_run(
    pg_server: PostgresServer, scratch_dsn: str, moved_to: str
) -> None:
    """The lease claim inserts its attempt before it moves the run. If a transition moves
    the run in between, the claim returns nothing and its attempt is left unclaimed: the
    next transition ends it, or it expires by time without touching the run; the next
    claim numbers past it instead of colliding with it."""
    profile = with_strategy(PROFILES["default"], LockStrategy.lease)
    rt = Session(scratch_dsn, with_version(profile, pg_server.version))
    run = rt.start("contested")
    key = {**rt.tenant, "run_id": run["run_id"]}
    with psycopg.connect(scratch_dsn, row_factory=dict_row) as mover:
        moved = rt("transition_run", mover, **key, expected_version=1, to_status=moved_to)
        assert moved == 2  # not committed yet: the claim will wait on this row
        assert racing_claim(rt, scratch_dsn, mover, blocks=True) is None
    attempts = f"SELECT attempt_no, status, interruption_reason FROM {rt.schema}.attempts"
    assert rt.sql(attempts) == [{"attempt_no": 1, "status": "active", "interruption_reason": None}]
    if moved_to == "waiting":
        rt("transition_run", **key, expected_version=2, to_status="queued")
        assert rt.sql(attempts) == [
            {"attempt_no": 1, "status": "interrupted", "interruption_reason": "run_queued"}
        ]
        claimed = rt.claim("late")
        assert claimed is not None and claimed["attempt_no"] == 2
    else:
        rt.backdate_lease(run["run_id"])
        expired = rt("expire_leases", batch_size=10)
        assert [(e["attempt_no"], e["run_status"]) for e in expired] == [(1, None)]
        assert rt.run(run["run_id"])["status"] == "cancelled"  # the run is left alone
    rt.close()


def test_another_runs_reservation_is_never_owned(pg_server: PostgresServer, scratch_dsn: str) -> None:
    """Fencing tokens count per run, so two runs' first attempts share token 1: a key
    reserved by one run must not read as owned by the other (it would redo the effect)."""
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    rt.start("a"), rt.start("b")
    first, second = rt.claim("a"), rt.claim("b")
    assert first and second and first["fencing_token"] == second["fencing_token"] == 1
    mine = reserve(rt, first, "invoice-7", b"amount=10")
    assert mine is not None and (mine["inserted"], mine["owned"]) == (True, True)
    theirs = reserve(rt, second, "invoice-7", b"amount=10")
    assert theirs is not None and theirs["run_id"] == first["run_id"]
    assert (theirs["inserted"], theirs["status"], theirs["owned"]) == (False, "pending", False)
    completed_by_other_run = record(rt, second, "invoice-7", "succeeded", None)
    assert completed_by_other_run is None  # same token, another run: not the holder
    rt.close()


@pytest.mark.parametrize("rival", ["transition_run", "expire_leases", "claim_run"])
def test_a_last_step_does_not_deadlock_with_a_cancel_or_a_reaper(
    pg_server: PostgresServer, scratch_dsn: str, rival: str
) -> None:
    """A worker appends its last event and completes in one transaction (the event comes
    first: it is fenced on a running run). A cancel (transition_run) or a reaper
    (expire_leases, the lease ran out) arriving in between must wait for the worker or
    skip it, not deadlock: fenced writes lock the attempt before the run, like the rest.
    So must a claim that finds the lease ran out and would take the run over."""
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    run = rt.start("last-step")
    claim = rt.claim("w")
    assert claim is not None
    if rival != "transition_run":
        rt.backdate_lease(run["run_id"])
    rival_args = {
        "transition_run": {
            **rt.tenant,
            "run_id": run["run_id"],
            "expected_version": claim["version"],
            "to_status": "cancelled",
        },
        "expire_leases": {"batch_size": 10},
        "claim_run": {**rt.claim_scope, "worker_id": "rival", "lease_token": "rival", "lease_seconds": 30},
    }[rival]
    result: dict[str, Any] = {}

    def rival_call() -> None:
        with psycopg.connect(scratch_dsn, autocommit=True, row_factory=dict_row) as conn:
            result["rival"] = rt(rival, conn, **rival_args)

    with psycopg.connect(scratch_dsn, row_factory=dict_row) as worker:
        worker.execute("SET deadlock_timeout = '50ms'")
        fence = rt.fence(claim, "w")
        appended = rt(
            "append_event",
            worker,
            **fence,
            kind="run.done",
            actor="agent:w",
            policy_version=None,
            payload=Jsonb({}),
        )
        assert appended is not None
        thread = threading.Thread(target=rival_call)
        thread.start()
        if rival == "transition_run":
            wait_until_blocked(rt)
        else:
            thread.join(10)
        done = rt("complete_attempt", worker, **fence, result=Jsonb({"ok": True}))
        worker.commit()
        thread.join(10)
    assert done is not None and done["run_status"] == "succeeded"
    assert result["rival"] in (None, [])  # the worker finished first; the rival found nothing
    rt.close()


def test_purge_keeps_a_tree_while_any_run_in_it_is_live_or_recent(
    pg_server: PostgresServer, scratch_dsn: str
) -> None:
    """Deleting a run cascades to its subtree: an expired root waits for a live grandchild
    and for a child that finished inside the window."""
    rt = Session(scratch_dsn, with_version(PROFILES["default"], pg_server.version))
    root = rt.start("root")["run_id"]
    child = rt.start("child", parent=root)["run_id"]
    rt.start("grandchild", parent=child)
    rt.sql(
        f"UPDATE {rt.schema}.runs SET status = 'cancelled', version = version + 1, "
        "finished_at = now() - interval '400 days' WHERE run_id IN (%s, %s)",
        root,
        child,
    )
    assert rt("purge_finished_runs", batch_size=100) == 0  # the grandchild is still queued
    rt.sql(
        f"UPDATE {rt.schema}.runs SET status = 'cancelled', version = version + 1, finished_at = now() "
        "WHERE finished_at IS NULL"
    )
    assert rt("purge_finished_runs", batch_size=100) == 0  # it finished just now
    rt.sql(f"UPDATE {rt.schema}.runs SET finished_at = now() - interval '400 days'")
    assert rt("purge_finished_runs", batch_size=100) == 3  # the whole tree has expired
    assert rt.sql(f"SELECT count(*) AS n FROM {rt.schema}.runs") == [{"n": 0}]
    rt.close()
