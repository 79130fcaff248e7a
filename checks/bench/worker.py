"""A bench client: a separate OS process (multiprocessing, "spawn") with a connection of
its own (`db.connect`), that runs one workload at a time when the coordinator says go.

The pool (core.workers) opens and closes the client's connection; a segment is bench's
own message. The coordinator sends ("segment", name); the client prepares (untimed) and
answers "ready"; when every client is ready the coordinator takes its first snapshot,
sets the deadline and the go event; each client repeats the workload's operation until
the deadline, makes the server publish its statistics, and answers "measured" with its
counts and latencies; after the coordinator's second snapshot, ("finish",) lets it clean
up (untimed) and answer "finished".
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo
from psycopg.rows import dict_row

from agentddl.checks.bench.work import STEPS, Client, LostClaim, Steps
from agentddl.checks.core.workers import WorkerSide
from agentddl.checks.db.connect import connect, error_line
from agentddl.checks.db.runtime import Runtime, load_queries
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

PG14_STATS_INTERVAL = 0.6  # PostgreSQL 14 sends a backend's statistics at most every 0.5 s


@dataclass(frozen=True)
class WorkerSetup:
    """What every client of one database shares (pickled into each process)."""

    dsn: str
    model: SchemaModel
    queries_text: str
    floor_schema: str
    tenants: tuple[Any, ...]  # client i works as tenants[i % len]; (None,) single-tenant
    read_depth: int


@dataclass
class Measured:
    """One client's part of one segment."""

    ops: int = 0
    empty: int = 0  # claims that found no run
    errors: int = 0
    first_error: str | None = None
    latencies: list[float] = field(default_factory=list)  # seconds, one per operation
    seconds: float = 0.0  # from go to the end of its last operation
    cpu_seconds: float = 0.0  # this client process's own CPU meanwhile (driver, JSON, pickling)


def open_client(setup: WorkerSetup, slot: int) -> Client:
    dsn = make_conninfo(setup.dsn, application_name=f"agentddl-bench-{slot}")
    conn = connect(dsn, autocommit=False, row_factory=dict_row, settings={"statement_timeout": "60s"})
    try:
        tenant = setup.tenants[slot % len(setup.tenants)]
        queries = load_queries(setup.model, setup.queries_text)
        runtime = Runtime(setup.model, conn, tenant, queries).pin("app")
        lease = int(setup.model.profile.lease.duration)
        return Client(runtime, slot, setup.floor_schema, setup.read_depth, lease)
    except BaseException:
        conn.close()
        raise


def measure(client: Client, steps: Steps, state: Any, deadline: float) -> Measured:
    """Repeat the operation until `deadline` (time.monotonic); a failed operation is
    rolled back and counted, and the loop goes on."""
    out = Measured()
    cpu = time.process_time()
    started = now = time.monotonic()
    while now < deadline:
        before = now
        try:
            done = steps.op(client, state)
        except (psycopg.Error, LostClaim) as error:
            if client.conn.broken:
                raise
            client.conn.rollback()
            out.errors += 1
            out.first_error = out.first_error or error_line(error)
            done = None
        now = time.monotonic()
        if done:
            out.ops += 1
            out.latencies.append(now - before)
        elif done is not None:
            out.empty += 1
    out.seconds = now - started
    out.cpu_seconds = time.process_time() - cpu
    return out


def publish_statistics(client: Client) -> None:
    """Make the server count this session's WAL and time in its cumulative statistics
    now (they are flushed lazily), so the coordinator's snapshot sees all of it."""
    conn = client.conn
    if conn.info.server_version >= 150000:
        conn.execute("SELECT pg_stat_force_next_flush()")
    else:
        time.sleep(PG14_STATS_INTERVAL)
        conn.execute("SELECT 1")
    conn.commit()


class BenchSide(WorkerSide[Client]):
    """A client process's part of the pool: its session is a bench `Client`; its one
    message is ("segment", workload)."""

    def __init__(self, go: Event, deadline: Synchronized) -> None:  # type: ignore[type-arg]
        self.go, self.deadline = go, deadline

    def open(self, setup: WorkerSetup, slot: int, pipe: Connection) -> Client:
        return open_client(setup, slot)

    def configured(self, client: Client) -> int:
        return client.conn.info.backend_pid

    def handle(self, client: Client, message: tuple[str, str], pipe: Connection) -> None:
        _segment(client, STEPS[message[1]], pipe, self.go, self.deadline)

    def close(self, client: Client) -> None:
        client.conn.close()


def _segment(client: Client, steps: Steps, pipe: Connection, go: Event, deadline: Synchronized) -> None:  # type: ignore[type-arg]
    """One segment; any phase may answer ("failed", why) instead, which ends it here."""
    try:
        state = steps.prepare(client)
    except Exception as error:
        _failed(client, pipe, error)
        return
    pipe.send(("ready", None))
    go.wait()
    try:
        measured = measure(client, steps, state, deadline.value)
        publish_statistics(client)
    except Exception as error:
        _failed(client, pipe, error)
        return
    pipe.send(("measured", measured))
    if pipe.recv() != ("finish",):
        return
    try:
        steps.finish(client, state)
    except Exception as error:
        _failed(client, pipe, error)
        return
    pipe.send(("finished", None))


def _failed(client: Client, pipe: Connection, error: BaseException) -> None:
    if not client.conn.broken:
        client.conn.rollback()
    pipe.send(("failed", _said(error)))


def _said(error: BaseException) -> str:
    if isinstance(error, psycopg.Error | LostClaim | AgentDDLError):
        return error_line(error)
    return traceback.format_exc(limit=6)
