"""A prove worker: a separate OS process (multiprocessing, "spawn") with its own
connection, that runs only the named queries of queries.sql (through checks.runtime).

The pool (core.workers) sends the setup, which opens a WorkerContext, then Tasks; a
task names a scenario module and one of its `work_<action>` functions, which this
process imports and runs. A task may carry a crash point: when the worker reaches it,
it SIGKILLs itself there (no cleanup, no commit, the server sees the connection drop),
and the coordinator starts a new one.
"""

from __future__ import annotations

import importlib
import os
import random
import signal
import traceback
import uuid
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Any

import psycopg
from psycopg.rows import dict_row

from agentddl.checks.core.workers import WorkerSide
from agentddl.checks.db.runtime import Runtime, load_queries
from agentddl.checks.prove.hot_setup import HotSetup
from agentddl.checks.prove.journal import Journal
from agentddl.checks.prove.sessions import RECONNECT_SECONDS, open_when_up
from agentddl.generator.model import SchemaModel

Row = dict[str, Any]


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker of one prove run shares (pickled into each process)."""

    dsn: str
    model: SchemaModel
    queries_text: str  # queries.sql as rendered (or a variant of it)
    journal_dir: str
    lease_seconds: int
    seed: int
    hot: HotSetup | None = None  # the hot projection in Redis (hot_state.store: redis)
    pooled: bool = False  # dsn is a transaction-mode pooler's: no server-side prepared statements


@dataclass(frozen=True)
class Task:
    scenario: str  # module under agentddl.checks.prove.scenarios
    action: str  # its work_<action> function
    params: dict[str, Any] = field(default_factory=dict)
    crash_at: str | None = None  # the crash point this worker dies at, once
    lease_seconds: int | None = None  # None: the setup's


class WorkerContext:
    """One worker process's connection, runtimes, journal and crash plan."""

    def __init__(self, setup: WorkerSetup, slot: int, pipe: Connection, stop: Event, go: Event) -> None:
        self.setup, self.slot, self.pipe, self.stop, self.go = setup, slot, pipe, stop, go
        self.model = setup.model
        self.tenant_column = setup.model.profile.tenancy.column
        self.rls = setup.model.profile.tenancy.row_level_security
        # distribution: citus: the claim and the relay name their tenant (one shard each)
        self.distributed = setup.model.is_distributed
        self.queries = load_queries(setup.model, setup.queries_text)
        self.journal = Journal(setup.journal_dir, slot)
        self.rng = random.Random(f"{setup.seed}-{slot}-{os.getpid()}")
        self.crash_at: str | None = None
        self.armed = False  # the work in progress is where the crash is planned
        self.lease_seconds = setup.lease_seconds
        self.conn = self._connect()
        self._runtimes: dict[Any, Runtime] = {}
        self.hot_state: dict[Any, Any] | None = None  # checks/prove/hot.py: module, client, HotStates

    def _connect(self, seconds: float = 0.0) -> psycopg.Connection[Row]:
        """The worker's session; `seconds`: tried again that long while the server is down."""
        conn: psycopg.Connection[Row] = open_when_up(
            self.setup.dsn,
            str(self.slot),
            seconds,
            self.stop.is_set,
            autocommit=False,
            row_factory=dict_row,
            settings={"statement_timeout": "60s"},
        )
        if self.setup.pooled:  # the pooler hands the next transaction to another server session
            conn.prepare_threshold = None
        return conn

    def reconnect_if_broken(self) -> None:
        """A new session if the server dropped this one (a crash, a restart, a failover:
        tried again until the server is back); else end what failed."""
        if self.conn.closed or self.conn.broken:
            self.conn = self._connect(RECONNECT_SECONDS)
        elif self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            self.conn.rollback()

    def runtime(self, tenant: Any | None) -> Runtime:
        """The queries as `tenant`'s session on this worker's connection: one Runtime per
        tenant, made again after a reconnect (every query of every step asks for one)."""
        found = self._runtimes.get(tenant)
        if found is None or found.connection is not self.conn:
            found = self._runtimes[tenant] = Runtime(self.model, self.conn, tenant, self.queries)
        return found

    def scope(self, tenant: Any | None) -> dict[str, Any]:
        """The tenant parameter of a tenant-scoped query (nothing when single-tenant)."""
        return {self.tenant_column: tenant} if self.tenant_column else {}

    def claim_scope(self, tenant: Any | None) -> dict[str, Any]:
        """claim_run takes the tenant under row-level security or Citus (else it is global)."""
        return self.scope(tenant) if self.model.claims_within_tenant else {}

    def new_token(self) -> str:
        return f"w{self.slot}-{uuid.uuid4().hex}"

    def maybe_crash(self, point: str) -> None:
        """Die here, by SIGKILL, if this is the task's crash point."""
        if self.armed and self.crash_at == point:
            self.journal.write("crash", point=point)
            os.kill(os.getpid(), signal.SIGKILL)

    def arm(self, claim: Row, step: int, crash_step: int | None) -> None:
        """Crash during `step` of a run's first attempt if that is the planned step (so a
        run is killed at most once and a takeover always finishes it)."""
        self.armed = crash_step == step and claim["attempt_no"] == 1

    def ready(self) -> None:
        """Tell the coordinator this worker is set up, and wait until every worker is."""
        self.pipe.send(("ready", None))
        while not self.go.wait(0.1):
            if self.stop.is_set():
                return

    def run(self, task: Task) -> dict[str, Any]:
        self.crash_at = task.crash_at
        self.lease_seconds = task.lease_seconds or self.setup.lease_seconds
        self.journal.scenario = task.scenario
        module = importlib.import_module(f"agentddl.checks.prove.scenarios.{task.scenario}")
        result: dict[str, Any] = getattr(module, f"work_{task.action}")(self, **task.params)
        return result


class ProveSide(WorkerSide[WorkerContext]):
    """A prove worker process's part of the pool: its session is a WorkerContext, its
    messages are Tasks (each answered with its result, or "failed" and the traceback)."""

    def __init__(self, stop: Event, go: Event) -> None:
        self.stop, self.go = stop, go

    def begin(self) -> None:
        """Import every scenario now: nothing is read from disk once the work starts."""
        from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS

        for name in (*SCENARIOS, *HOT_SCENARIOS):
            importlib.import_module(f"agentddl.checks.prove.scenarios.{name}")

    def open(self, setup: WorkerSetup, slot: int, pipe: Connection) -> WorkerContext:
        return WorkerContext(setup, slot, pipe, self.stop, self.go)

    def handle(self, worker: WorkerContext, task: Task, pipe: Connection) -> None:
        try:
            pipe.send(("result", worker.run(task)))
        except Exception:  # a worker bug or an unexpected server error: the coordinator reports it
            pipe.send(("failed", traceback.format_exc(limit=8)))
        worker.reconnect_if_broken()

    def close(self, worker: WorkerContext) -> None:
        worker.conn.close()
        worker.journal.close()
