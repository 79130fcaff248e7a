"""Tracing on a server already running: a scratch database holding the current schema,
the migrations applied and recorded statement by statement, the findings judged.
`agentddl.checks.trace.run` (request.py) opens the server and calls this."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import agentddl.checks.trace.snapshot as snapshot
from agentddl.checks.core.progress import Progress
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.clone import CloneSource
from agentddl.checks.trace.blocking import charge_blocked, throughput
from agentddl.checks.trace.execute import Timed, Tracer
from agentddl.checks.trace.judge import judge
from agentddl.checks.trace.observed import Limits
from agentddl.checks.trace.online import OnlineTracer
from agentddl.checks.trace.result import TraceResult
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.checks.trace.source import MigrationFile, load_migrations
from agentddl.checks.trace.watch import LockWatcher
from agentddl.checks.trace.workload import Workload
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel


@dataclass(frozen=True)
class TraceOptions:
    model: SchemaModel | None = None  # the profile's schema goes in first (and --load runs its queries)
    clone: CloneSource | None = None  # or a copy of the user's database (schema, sample, statistics)
    schema_files: list[Path] = field(default_factory=list)  # then these (the user's current schema)
    rows: int = 0  # events to seed (profile schemas)
    load: bool = False
    connections: int = 4  # workload sessions with --load
    settle_seconds: float = 1.0  # workload time before and after the migration
    limits: Limits = field(default_factory=Limits)
    progress: Progress | None = None  # seeding progress
    offline: bool = False  # Alembic revisions read as `alembic upgrade --sql` prints them, not run
    # Something to run alongside the migration, given the scratch DSN (tests: a session
    # holding a conflicting lock, so lock_timeout fires or CONCURRENTLY has to wait).
    alongside: Callable[[str], contextlib.AbstractContextManager[object]] | None = None
    after: Callable[[str], None] | None = None  # given the scratch DSN once traced, before the drop

    def check(self) -> None:
        """Workload and seeded rows need a profile's schema (its queries, its tables)."""
        if self.load and self.model is None:
            raise AgentDDLError(
                "--load runs the profile's queries: pass --profile (or leave the default schema)"
            )
        if self.rows and self.model is None:
            raise AgentDDLError(
                "--rows seeds a profile's schema: pass --profile (own tables: insert rows in --schema-sql)"
            )


def trace_migrations(server: PostgresServer, paths: list[Path], options: TraceOptions) -> TraceResult:
    """Apply the migrations to a scratch database holding the current schema, record every
    statement, judge; the scratch database is dropped whatever happens."""
    files = load_migrations(paths, server.version, online=not options.offline)  # errors before any work
    options.check()
    with scratch_with_schema(
        server, options.model, options.schema_files, options.rows, options.progress, options.clone
    ) as dsn:
        if options.progress is not None:
            options.progress(_progress_line(files))
        result = trace_on(dsn, server.version, files, options)
        if options.after is not None:
            options.after(dsn)
        return result


def trace_on(dsn: str, version: int, files: list[MigrationFile], options: TraceOptions) -> TraceResult:
    """Trace `files` on a database that already holds the current schema (and rows): the
    scratch database of trace_migrations, or one a benchmark prepared once for many runs."""
    result = TraceResult(server_version=version, sources={str(f.path): f.text for f in files})
    existing = snapshot.existing(dsn)
    alongside = options.alongside(dsn) if options.alongside else contextlib.nullcontext()
    with LockWatcher(dsn) as watcher, alongside:
        tracer = OnlineTracer(dsn, version, watcher, existing)
        if options.load and options.model is not None:
            timed = _under_load(dsn, options, tracer, files, watcher, result)
        else:
            timed = tracer.run(files)
    result.statements = [t.trace for t in timed]
    result.existing = {name for name, _size in existing.values()}
    result.findings = judge(result.statements, result.existing, options.limits)
    return result


def _progress_line(files: list[MigrationFile]) -> str:
    """The progress line before the trace: statements known ahead, revisions Alembic runs."""
    revisions = sum(1 for f in files if f.online)
    line = f"tracing {sum(len(f.statements) for f in files)} statement(s)"
    return line + (f" and {revisions} Alembic revision(s) as they run" if revisions else "")


def _under_load(
    dsn: str,
    options: TraceOptions,
    tracer: Tracer,
    files: list[MigrationFile],
    watcher: LockWatcher,
    result: TraceResult,
) -> list[Timed]:
    assert options.model is not None
    tracer.shared_with_workload = True
    workload = Workload(dsn, options.model, connections=options.connections)
    workload.start()
    try:
        watcher.workload_pids = list(workload.pids)
        time.sleep(options.settle_seconds)
        began = time.monotonic()
        timed = tracer.run(files)
        finished = time.monotonic()
        time.sleep(options.settle_seconds)
    finally:
        workload.stop()
    ended = time.monotonic()
    charge_blocked(timed, workload.calls, watcher.waiting_times())
    result.throughput = throughput(
        workload.calls, workload.started, (began, finished), ended, options.connections
    )
    return timed
