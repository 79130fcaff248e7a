"""Partition maintenance under the runtime's own load: `agentddl trace --load`'s machinery
(its workload of named queries, its lock watcher and tracer) around one maintenance run,
and how long each kind of workload query waited meanwhile.

Shared by the retention benchmark (tests/benchmarks/retention_bench.py, at 1,000,000
events) and the integration test that fails when maintenance stalls the queue (at a
test-friendly size).

How long is too long comes from the same run, not from a fixed number of milliseconds: a
loaded machine runs every statement slower, the queue's own writes and a maintenance
step's catalog change alike, and what lengthens a wait is the machine's tail (a session
not scheduled for a while), not its median. The floor is the 90th percentile of the claims
and step writes while nothing but the workload runs (just before the job);
`Measurement.bound_ms` adds to the step's lock_timeout (what a step queued behind a lock
makes the queue wait) two lock-watcher samples and FLOOR_FACTOR floors (a granted step's
own change and commit, on this machine as busy as it is). Measured on 2 cores: idle, a
floor of 2.5-5 ms (bound 48-80 ms) and waits up to 33 ms; both cores busy (stress-ng), a
floor of 10-63 ms and waits up to 66 ms; a job that stalls the queue, waits of seconds.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from psycopg import sql

from agentddl.checks.db import connect
from agentddl.checks.trace import snapshot
from agentddl.checks.trace.blocking import charge_blocked
from agentddl.checks.trace.execute import Tracer
from agentddl.checks.trace.source import MigrationFile, load_migrations
from agentddl.checks.trace.types import StatementTrace
from agentddl.checks.trace.watch import SAMPLE_SECONDS, LockWatcher
from agentddl.checks.trace.workload import Call, Workload
from agentddl.generator.model import SchemaModel
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS

# What the bound is about: a worker's claim and its step writes (reads are reported too).
CLAIMS_AND_STEP_WRITES = (
    "claim_run",
    "append_event",
    "save_checkpoint",
    "heartbeat",
    "complete_attempt",
)
FLOOR_FACTOR = 12  # a granted step's catalog change and commit, in slow claims or step writes
FLOOR_CALLS = 20  # claims and step writes the floor is the 90th percentile of, at least


@dataclass(frozen=True)
class Measurement:
    statements: list[StatementTrace]  # the maintenance job, as trace saw each statement
    waits_ms: dict[str, float]  # per query: the longest lock wait of a call meanwhile
    latency_ms: dict[str, float]  # per query: the slowest call that waited (its whole latency)
    calls_during: int  # workload calls completed while maintenance ran
    seconds: float  # how long the maintenance job ran
    floor_ms: float  # the 90th-percentile claim or step write just before the job: this machine, now

    @property
    def worst_claim_or_step_ms(self) -> float:
        return max((self.waits_ms.get(q, 0.0) for q in CLAIMS_AND_STEP_WRITES), default=0.0)

    @property
    def bound_ms(self) -> float:
        """The longest a claim or step write may wait on maintenance that never stalls the
        queue, on this machine in this run (the module's docstring)."""
        return bound_ms(self.floor_ms)

    @property
    def failed(self) -> list[StatementTrace]:
        return [s for s in self.statements if s.error]


def bound_ms(floor_ms: float) -> float:
    return STEP_LOCK_TIMEOUT_MS + 2 * SAMPLE_SECONDS * 1000 + FLOOR_FACTOR * floor_ms


Job = list[str] | Callable[[float], list[str]]


def measure(
    dsn: str,
    version: int,
    model: SchemaModel,
    job: Job,
    connections: int = 4,
    settle: float = 1.0,
    reader_seconds: float = 0.0,
) -> Measurement:
    """Run the maintenance `job` (statements, each run as psql would run a file; or a
    function of the floor returning them) while `connections` sessions run the workload;
    what each kind of query waited. reader_seconds: a report's long transaction that has
    read runs and events is still open when maintenance starts (a lock it must not queue
    behind for long)."""
    existing = snapshot.existing(dsn)
    workload = Workload(dsn, model, connections=connections)
    with tempfile.TemporaryDirectory(prefix="agentddl-maintenance-") as folder, LockWatcher(dsn) as watcher:
        workload.start()
        try:
            watcher.workload_pids = list(workload.pids)
            floor = _floor(workload, settle)
            statements = job(floor) if callable(job) else job
            files = _job_file(Path(folder), statements, version)
            tracer = Tracer(dsn, version, watcher, existing)
            tracer.shared_with_workload = True
            with long_reader(dsn, model, reader_seconds):
                began = time.monotonic()
                timed = tracer.run(files)
            finished = time.monotonic()
            time.sleep(settle)
        finally:
            workload.stop()
        waiting = watcher.waiting_times()
    charge_blocked(timed, workload.calls, waiting)
    waits, latency = _waits(workload.calls, waiting, began, finished)
    return Measurement(
        statements=[t.trace for t in timed],
        waits_ms=waits,
        latency_ms=latency,
        calls_during=sum(1 for c in workload.calls if began <= c.end <= finished and c.ok),
        seconds=finished - began,
        floor_ms=floor,
    )


def _floor(workload: Workload, settle: float) -> float:
    """The workload alone for `settle` seconds and until it has made FLOOR_CALLS claims or
    step writes: their latency's 90th percentile (ms)."""
    time.sleep(settle)
    deadline = time.monotonic() + 120  # a hang guard: a workload that cannot write fails here
    while time.monotonic() < deadline:
        writes = [c for c in list(workload.calls) if c.ok and c.name in CLAIMS_AND_STEP_WRITES]
        if len(writes) >= FLOOR_CALLS:
            return statistics.quantiles([(c.end - c.start) * 1000 for c in writes], n=10)[-1]
        time.sleep(0.05)
    raise AssertionError(f"the workload made fewer than {FLOOR_CALLS} claims or step writes in 2 minutes")


def _job_file(folder: Path, statements: list[str], version: int) -> list[MigrationFile]:
    path = folder / "maintenance.sql"
    path.write_text("".join(f"{s.rstrip().rstrip(';')};\n" for s in statements), encoding="utf-8")
    return load_migrations([path], version)


@contextlib.contextmanager
def long_reader(dsn: str, model: SchemaModel, seconds: float) -> Iterator[None]:
    """A session whose transaction read runs and events and stays open `seconds` (an
    export, a dashboard): ACCESS SHARE on both until it ends. Nothing when seconds is 0."""
    if seconds <= 0:
        yield
        return
    holding = threading.Event()

    def read() -> None:
        with connect(dsn) as conn, conn.transaction():
            for table in ("runs", "events"):
                conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(sql.Identifier(model.schema, table)))
            holding.set()
            conn.execute("SELECT pg_sleep(%s)", [seconds])

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    holding.wait(30)
    try:
        yield
    finally:
        thread.join()


def _waits(
    calls: list[Call], waiting: dict[int, list[float]], began: float, finished: float
) -> tuple[dict[str, float], dict[str, float]]:
    """Per query name, among calls seen waiting on a lock while maintenance ran: the
    longest wait (first to last sample that saw it waiting, plus one sampling interval)
    and the longest whole latency (what trace charges); 0 for queries that never waited."""
    waits: dict[str, float] = {}
    latency: dict[str, float] = {}
    for call in calls:
        waits.setdefault(call.name, 0.0)
        latency.setdefault(call.name, 0.0)
        if call.end < began or call.start > finished:
            continue
        seen = [t for t in waiting.get(call.pid, ()) if call.start <= t <= call.end]
        if seen:
            waited = min(call.end - call.start, seen[-1] - seen[0] + SAMPLE_SECONDS)
            waits[call.name] = max(waits[call.name], waited * 1000)
            latency[call.name] = max(latency[call.name], (call.end - call.start) * 1000)
    return waits, latency
