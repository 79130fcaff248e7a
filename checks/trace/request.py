"""`run(TraceRequest) -> TraceResult`: the whole `agentddl trace` as a library call.

The current schema a scratch database starts from: a copy of the user's database `dsn`
(its schema; with `sample`, up to that many rows per table, foreign keys kept; with
`statistics`, its planner statistics, on a PostgreSQL 18 scratch server), else the
profile's (the given one, else the default profile unless the caller brings their own
schema with `schema_files` or asks for `empty`); then `schema_files`, then `rows`
seeded events. The server: `server` (it needs CREATEDB), else `dsn`'s server (unless
`pg_version` asks for an embedded one), else an embedded one (`pg_version` exactly,
else the profile's engine version when installed, else the newest).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db import database_error
from agentddl.checks.db.clone import CloneSource
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.trace.observed import Limits
from agentddl.checks.trace.result import TraceResult
from agentddl.checks.trace.source import load_migrations
from agentddl.checks.trace.tracing import TraceOptions, trace_migrations
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile, load_profile

NEWEST_MAJOR = 18  # parses migrations when neither --pg-version nor a profile names one


@dataclass(frozen=True)
class TraceRequest:
    """What to trace, on what schema, on which server, judged by which limits."""

    migrations: list[Path]  # SQL files, Alembic revisions, folders of either
    dsn: str | None = None  # a database to copy the schema of (only read; `--dsn` / `--clone`)
    sample: int = 0  # with dsn: rows per table to copy, foreign keys kept
    statistics: bool = False  # with dsn: copy its planner statistics too (scratch server 18+)
    profile: Path | None = None  # the profile whose schema is the current schema
    model: SchemaModel | None = None  # or its model, derived already (not with `profile`)
    empty: bool = False  # no profile schema: an empty database (plus schema_files)
    schema_files: list[Path] = field(default_factory=list)  # SQL applied first (e.g. pg_dump -s)
    rows: int = 0  # events to seed into the profile's schema
    load: bool = False  # run the profile's queries while the migration applies
    connections: int = 4  # workload sessions with `load`
    limits: Limits = field(default_factory=Limits)
    server: str | None = None  # where the scratch database is created; None: an embedded one
    pg_version: int | None = None  # the embedded server's major (not with `server`)
    progress: Progress = silent  # seeding progress
    offline: bool = False  # Alembic revisions read as `alembic upgrade --sql` prints them, not run
    # Called with the scratch database's DSN once the migrations ran, before it is dropped
    # (the check gate verifies and audits the migrated schema there).
    after: Callable[[str], None] | None = None


def run(request: TraceRequest) -> TraceResult:
    """Trace the migrations on a scratch database; it is dropped whatever happens, and no
    database but it is changed. Bad input fails before any server starts."""
    model = current_schema(request)
    for path in request.schema_files:
        if not path.is_file():
            raise AgentDDLError(f"--schema-sql {path}: no such file")
    preferred = model.profile.engine.version if model is not None else None
    load_migrations(request.migrations, request.pg_version or preferred or NEWEST_MAJOR, not request.offline)
    options = TraceOptions(
        model=model,
        clone=clone_source(request),
        schema_files=request.schema_files,
        rows=request.rows,
        load=request.load,
        connections=request.connections,
        limits=request.limits,
        progress=request.progress,
        offline=request.offline,
        after=request.after,
    )
    options.check()
    # --pg-version is what the user asked for: a missing major is an error, never another
    # major; the profile's engine version is only a preference (else the newest runs).
    # --dsn's server holds the scratch database unless --pg-version asks for an embedded one.
    near = request.dsn if request.pg_version is None else None
    with scratch_server(request.server, near, request.pg_version, prefer=preferred) as server:
        try:
            return trace_migrations(server, request.migrations, options)
        except psycopg.Error as error:  # the server went away, or the tracer's own reads failed
            raise database_error(error, "trace stopped") from None


def clone_source(request: TraceRequest) -> CloneSource | None:
    """What to copy from the user's database (None: no --dsn)."""
    if request.dsn is None:
        if request.sample or request.statistics:
            raise AgentDDLError("--sample and --statistics copy rows or statistics of --dsn: pass --dsn")
        return None
    return CloneSource(request.dsn, sample=request.sample, statistics=request.statistics)


def current_schema(request: TraceRequest) -> SchemaModel | None:
    """The profile's schema model: the given model or profile, else the default profile's
    unless the caller brings their own schema (schema_files, a database to copy) or asks
    for an empty one."""
    profile_schema = request.profile is not None or request.model is not None
    if request.dsn is not None and (profile_schema or request.empty):
        raise AgentDDLError("--dsn copies your database's schema: not with --profile or --empty")
    if request.empty and (request.profile is not None or request.model is not None):
        raise AgentDDLError("--empty and --profile: choose one (an empty database, or the profile's schema)")
    if request.model is not None and request.profile is not None:
        raise AgentDDLError("a trace request takes a profile or a model, not both")
    if request.model is not None:
        return request.model
    if request.profile is not None:
        return derive(load_profile(request.profile))
    if request.empty or request.schema_files or request.dsn is not None:
        return None
    return derive(load_default_profile())
