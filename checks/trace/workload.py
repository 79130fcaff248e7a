"""`trace --load`: the runtime's own queries running while the migration applies.

Several worker threads, each on its own connection, loop through a run's life as a
worker does: start a run, claim one (claims), then step writes (append_event,
heartbeat, save_checkpoint) and reads (get_run, run_events), then complete it. Every
query goes through agentddl.checks.db.runtime, as its production role. Each call's
latency is recorded with the session's pid; the lock watcher tells which calls waited
on a lock. Nothing sets lock_timeout: waits are what we measure. A generous
statement_timeout bounds every call, so a run always ends.
"""

from __future__ import annotations

import inspect
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.checks.db import DatabaseError, connect
from agentddl.checks.db.runtime import Runtime, load_queries
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

WORKLOAD_STATEMENT_TIMEOUT_MS = 300_000
STEPS_PER_RUN = 20


@dataclass(frozen=True)
class Call:
    pid: int
    name: str
    start: float  # time.monotonic seconds
    end: float
    ok: bool


@dataclass
class Workload:
    """Worker threads running the named queries until stopped."""

    dsn: str
    model: SchemaModel
    connections: int = 4
    calls: list[Call] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    started: float = 0.0

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._failure = ""
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._queries = load_queries(self.model)
        self._tenant = _make_tenant(self.dsn, self.model)

    def start(self) -> None:
        """Every worker connected and ready, or an AgentDDLError once they have stopped."""
        self.started = time.monotonic()
        ready = threading.Barrier(self.connections + 1)
        for number in range(self.connections):
            thread = threading.Thread(target=self._worker, args=(number, ready), daemon=True)
            thread.start()
            self._threads.append(thread)
        try:
            ready.wait()
        except threading.BrokenBarrierError:  # a worker could not start: nobody would arrive
            self.stop()
            raise AgentDDLError(f"the --load workload could not start: {self._failure}") from None

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _worker(self, number: int, ready: threading.Barrier) -> None:
        try:
            conn = connect(
                self.dsn,
                row_factory=dict_row,
                settings={"statement_timeout": str(WORKLOAD_STATEMENT_TIMEOUT_MS)},
            )
        except DatabaseError as error:
            self._failure = str(error)
            ready.abort()
            return
        with conn:
            with self._lock:
                self.pids.append(conn.info.backend_pid)
            try:
                ready.wait()
            except threading.BrokenBarrierError:
                return  # another worker could not start
            worker = _Worker(
                self, Runtime(self.model, conn, tenant=self._tenant, queries=self._queries), number
            )
            while not self._stop.is_set():
                worker.one_run()

    def record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()


class _Worker:
    """One worker's loop: a run from start to completion, timing every call."""

    def __init__(self, workload: Workload, runtime: Runtime, number: int) -> None:
        self.workload = workload
        self.runtime = runtime
        self.pid = runtime.connection.info.backend_pid
        self.name = f"trace-worker-{number}"
        self.token = secrets.token_hex(16)
        self.tenant = _tenant_params(workload.model, workload._tenant)
        self.claim_scope = self.tenant if workload.model.profile.tenancy.row_level_security else {}

    def call(self, name: str, **params: Any) -> Any:
        query = getattr(self.runtime.queries, name)
        wanted = inspect.signature(query).parameters
        start = time.monotonic()
        try:
            result = self.runtime.call(name, **{k: v for k, v in params.items() if k in wanted})
        except psycopg.Error:
            self.workload.record(Call(self.pid, name, start, time.monotonic(), False))
            return None
        self.workload.record(Call(self.pid, name, start, time.monotonic(), True))
        return result

    def one_run(self) -> None:
        self.call(
            "start_run",
            **self.tenant,
            run_key=uuid.uuid4().hex,
            parent_run_id=None,
            kind="trace",
            input=Jsonb({}),
            priority=0,
            trace_id=None,
        )
        claim = self.call(
            "claim_run", **self.claim_scope, worker_id=self.name, lease_token=self.token, lease_seconds=300
        )
        if not claim:
            return
        fence = {
            **self.tenant,
            "run_id": claim["run_id"],
            "fencing_token": claim["fencing_token"],
            "lease_token": self.token,
        }
        for seq in range(1, STEPS_PER_RUN + 1):
            if self.workload.stopping:
                return
            self.step(claim, fence, seq)
        self.call("complete_attempt", **fence, result=Jsonb({}))

    def step(self, claim: dict[str, Any], fence: dict[str, Any], seq: int) -> None:
        """One agent step: its event, a heartbeat, a checkpoint every fifth step, two reads."""
        self.call(
            "append_event",
            **fence,
            kind="step.done",
            actor="agent:trace",
            policy_version=None,
            payload=Jsonb({"n": seq}),
        )
        self.call("heartbeat", **fence, lease_seconds=300)
        if seq % 5 == 0:
            self.checkpoint(fence, seq // 5)
        self.call("get_run", **self.tenant, run_id=claim["run_id"])
        self.call(
            "run_events",
            **self.tenant,
            run_id=claim["run_id"],
            run_created_at=claim["run_created_at"],
            after_seq=0,
            limit=10,
        )

    def checkpoint(self, fence: dict[str, Any], seq: int) -> None:
        self.call(
            "save_checkpoint",
            **fence,
            parent_seq=(seq - 1) or None,
            state_schema_version=1,
            next_nodes=["next"],
            completed_nodes=[],
            metadata=None,
            payload=Jsonb({"s": seq}),
            payload_ref=None,
            payload_bytes=None,
            payload_sha256=None,
        )


def _make_tenant(dsn: str, model: SchemaModel) -> Any | None:
    """A tenant row the workload's runs belong to (None for single-tenant schemas)."""
    column = model.profile.tenancy.column
    if column is None:
        return None
    kind = model.profile.tenancy.type
    tenant: Any = (
        uuid.uuid4()
        if kind == "uuid"
        else (secrets.randbits(40) if kind == "bigint" else f"trace-{secrets.token_hex(4)}")
    )
    insert = sql.SQL("INSERT INTO {}.tenants ({}, name) VALUES (%s, 'agentddl trace')").format(
        sql.Identifier(model.schema), sql.Identifier(column)
    )
    with connect(dsn) as conn:
        conn.execute(insert, [tenant])
    return tenant


def _tenant_params(model: SchemaModel, tenant: Any | None) -> dict[str, Any]:
    column = model.profile.tenancy.column
    return {column: tenant} if column is not None else {}
