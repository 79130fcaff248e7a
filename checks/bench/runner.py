"""run(): for each history size a database (seeded, or the one given), the client
processes, and the segments in order — floor, path, floor, ... — each measured."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.checks.bench.figures import Figures, PathResult, around, figures
from agentddl.checks.bench.observe import Observer, Snapshot, file_system_of, not_durable, server_settings
from agentddl.checks.bench.options import BenchOptions, BenchRequest
from agentddl.checks.bench.paths import WORKLOADS, Workload, hot_paths, segments
from agentddl.checks.bench.pool import Clients
from agentddl.checks.bench.result import BenchResult, HistoryResult, ServerFacts
from agentddl.checks.bench.stage import Stage
from agentddl.checks.bench.target import bench_target
from agentddl.checks.bench.worker import WorkerSetup
from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db import connect, database_error, describe_dsn
from agentddl.checks.db.runtime import load_queries
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.render.queries import render_queries

FIRST_RATE_GUESS = 2000.0  # commits/s, before the first floor says how fast this server is
QUEUE_MARGIN = 1.3  # queued runs made per claim the floor's rate allows: claims never run dry


def run(request: BenchRequest, *, clients: Clients | None = None, progress: Progress = silent) -> BenchResult:
    """Measure the profile's hot paths against the durable-commit floor (see the module
    docs of agentddl.checks.bench); every usage error is raised before a server starts.
    clients: client processes to run on (reused across calls; as many as --clients);
    without them, they are started once the first database is ready and stopped at the end."""
    validate(request)
    if clients is not None and len(clients.slots) != request.options.clients:
        raise AgentDDLError(
            f"{len(clients.slots)} client processes cannot run --clients {request.options.clients}"
        )
    given = clients
    options = request.options
    model = derive(request.profile)
    text = render_queries(model) if request.queries_text is None else request.queries_text
    paths = _paths(model, text, request)
    started = time.monotonic()
    histories: list[HistoryResult] = []
    facts: ServerFacts | None = None
    try:
        with bench_target(request, progress) as target:
            sizes: tuple[int | None, ...] = (None,) if request.dsn is not None else options.histories
            for history in sizes:
                with target.database(model, history) as (dsn, rows):
                    if clients is None:
                        progress(f"starting {options.clients} client processes")
                        clients = Clients(options.clients)
                    bench = _Database(dsn, model, text, paths, options, clients, progress)
                    result, facts = bench.run(history, rows, request.dsn is not None, target.embedded)
                    histories.append(result)
    finally:
        if clients is not None and clients is not given:
            clients.close()
    assert facts is not None
    return BenchResult(request.profile.name, facts, options, histories, time.monotonic() - started)


def validate(request: BenchRequest) -> None:
    """Every usage error, before any server is reached or process started."""
    options = request.options
    if options.clients < 1:
        raise AgentDDLError(f"--clients {options.clients}: at least 1")
    if not options.duration > 0:
        raise AgentDDLError(f"--duration {options.duration}: a positive number of seconds")
    if options.tenants not in ("auto", "own", "biggest"):
        raise AgentDDLError(f"tenants {options.tenants!r}: expected auto, own or biggest")
    if options.read_depth < 1:
        raise AgentDDLError("the latest-checkpoint read needs runs of at least 1 checkpoint")
    if any(h < 0 for h in options.histories) or not options.histories:
        raise AgentDDLError("--history: one or more row counts, each 0 or more")
    if request.dsn is not None and (request.server is not None or request.pg_version is not None):
        raise AgentDDLError(
            "--dsn measures the schema already in that database; --server and --pg-version choose "
            "where fresh installs go: pass one or the other"
        )
    unknown = sorted(set(options.paths) - {w.name for w in WORKLOADS.values() if not w.is_floor})
    if unknown:
        choices = ", ".join(w.name for w in WORKLOADS.values() if not w.is_floor)
        raise AgentDDLError(f"unknown hot path {unknown[0]!r}; expected one of {choices}")


def _paths(model: SchemaModel, text: str, request: BenchRequest) -> list[Workload]:
    try:
        loaded = load_queries(model, text)
    except Exception as error:  # aiosql raises its own SQLParseException and others
        raise AgentDDLError(f"queries.sql does not load: {error}") from error
    available = frozenset(p.name for p in model.access_paths) & frozenset(loaded.available_queries)
    paths = hot_paths(available, request.options.paths)
    missing = sorted(set(request.options.paths) - {p.name for p in paths})
    if missing:
        raise AgentDDLError(f"hot path {missing[0]!r}: the profile's queries.sql lacks a query it runs")
    return paths


@dataclass
class _Database:
    """One database's segments."""

    dsn: str
    model: SchemaModel
    text: str
    paths: list[Workload]
    options: BenchOptions
    clients: Clients
    progress: Progress

    def run(
        self, history: int | None, rows: dict[str, int], in_place: bool, embedded: bool
    ) -> tuple[HistoryResult, ServerFacts]:
        started = time.monotonic()
        try:
            with connect(self.dsn) as conn:
                stage = Stage(conn, self.model, self.options.clients)
                if in_place:
                    stage.refuse_live()
                try:
                    stage.set_up(own_tenants=self._own_tenants(in_place, history))
                    measured, facts = self._measure(conn, stage, history, embedded)
                finally:
                    if in_place:
                        stage.clean_up()
        except psycopg.Error as error:
            raise database_error(error, f"benchmarking in {describe_dsn(self.dsn)}") from error
        order = segments(self.paths)
        paths = [
            PathResult(
                w,
                measured[i],
                around(measured, i, "floor"),
                around(measured, i, "floor2") if w.two_commit_floor else None,
                around(measured, i, "floor", "cpu_ms_per_op") or None,
            )
            for i, w in enumerate(order)
            if not w.is_floor
        ]
        return HistoryResult(history, rows, measured, paths, time.monotonic() - started), facts

    def _own_tenants(self, in_place: bool, history: int | None) -> bool:
        if self.options.tenants != "auto":
            return self.options.tenants == "own"
        return in_place or not history

    def _measure(
        self, conn: psycopg.Connection[Any], stage: Stage, history: int | None, embedded: bool
    ) -> tuple[list[Figures], ServerFacts]:
        setup = WorkerSetup(
            self.dsn, self.model, self.text, stage.floor_schema, tuple(stage.tenants), self.options.read_depth
        )
        pids = self.clients.configure(setup)
        try:
            observer = Observer(conn, pids, self.model.schema)
            facts = _facts(conn, observer, embedded, self.options.checkpoint and stage.can_checkpoint)
            return self._segments(stage, observer, history), facts
        finally:
            self.clients.release()

    def _segments(self, stage: Stage, observer: Observer, history: int | None) -> list[Figures]:
        label = f"history {history:,}" if history is not None else "in place"
        order = segments(self.paths)
        measured: list[Figures] = []
        rate = FIRST_RATE_GUESS
        for number, workload in enumerate(order, 1):
            self._enqueue(stage, workload, rate)
            self.progress(f"{label}: {number}/{len(order)} {workload.title} ({self.options.duration:g} s)")
            found = measure_segment(self.clients, stage, observer, workload, self.options)
            measured.append(found)
            if workload.name == "floor" and found.ops_per_second > 0:
                rate = found.ops_per_second
        return measured

    def _enqueue(self, stage: Stage, workload: Workload, rate: float) -> None:
        clients = self.options.clients
        if not (workload.claims_per_op or workload.claims_to_prepare):
            return
        claims = math.ceil(workload.claims_per_op * rate * self.options.duration * QUEUE_MARGIN)
        stage.enqueue(claims + (workload.claims_to_prepare + 1) * clients)


def measure_segment(
    clients: Clients, stage: Stage, observer: Observer, workload: Workload, options: BenchOptions
) -> Figures:
    """One segment of `workload` on every client: a CHECKPOINT (when the options and the
    stage allow) and a snapshot right before, a snapshot right after, and its figures."""
    snapshots: dict[str, Snapshot] = {}

    def before() -> None:
        if options.checkpoint and stage.can_checkpoint:
            stage.checkpoint()
        snapshots["before"] = observer.snapshot()

    def after() -> None:
        snapshots["after"] = observer.snapshot()

    found = clients.segment(workload.name, options.duration, before, after)
    return figures(workload, found, observer.delta(snapshots["before"], snapshots["after"]))


def _facts(
    conn: psycopg.Connection[Any], observer: Observer, embedded: bool, checkpoint: bool
) -> ServerFacts:
    settings = server_settings(conn)
    file_system = file_system_of(settings.get("data_directory")) if observer.local else None
    return ServerFacts(
        version=conn.info.server_version // 10000,
        where=describe_dsn(conn.info.dsn),
        embedded=embedded,
        settings=settings,
        file_system=file_system,
        not_durable=not_durable(settings, file_system),
        cpu_source=observer.cpu_source,
        checkpoint_each_segment=checkpoint,
    )
