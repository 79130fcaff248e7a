"""`agentddl trace`: apply migrations to a scratch copy of the current schema on a real
PostgreSQL and report what each statement locked, rewrote, scanned and blocked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from agentddl.generator.errors import AgentDDLError

if TYPE_CHECKING:
    from agentddl.checks.trace.run import TraceOptions
    from agentddl.generator.model import SchemaModel

EXAMPLES = """
Examples:

  agentddl trace migrations/versions/0002_add_index.py          # on the default profile's schema

  agentddl trace 0007.sql --schema-sql db/schema.sql --dsn postgresql://me@db/postgres

  agentddl trace add_index.sql --profile schemas/default.yaml --rows 100000 --load --format json

The scratch database gets the profile's schema (default: schemas/default.yaml; none with
--schema-sql and no --profile, or with --empty), then the --schema-sql files (e.g. pg_dump
--schema-only, or earlier migrations), then --rows seeded events; it is dropped
afterwards. The target database is never changed.
Exit codes: 0 no error findings, 1 error findings (a rewrite, a long write lock, a failed
statement, workload blocked too long), 2 usage or connection error.
"""


def register(app: typer.Typer) -> None:
    """Add the `trace` command to the CLI."""
    app.command(
        "trace",
        help="Trace the locks, rewrites, scans and blocking of migrations on a real PostgreSQL.",
        epilog=EXAMPLES,
    )(trace_command)


def trace_command(
    migrations: Annotated[
        list[Path], typer.Argument(help="SQL files, Alembic revisions or folders.", metavar="MIGRATION...")
    ],
    dsn: Annotated[
        str | None, typer.Option("--dsn", envvar="AGENTDDL_DSN", help="Server for the scratch database.")
    ] = None,
    profile: Annotated[
        Path | None, typer.Option("--profile", help="Profile whose schema is the current schema.")
    ] = None,
    schema_sql: Annotated[
        list[Path] | None, typer.Option("--schema-sql", help="SQL applied first (repeatable).")
    ] = None,
    rows: Annotated[int, typer.Option("--rows", min=0, help="Events to seed into the profile's schema.")] = 0,
    load: Annotated[bool, typer.Option("--load", help="Run the profile's queries concurrently.")] = False,
    connections: Annotated[int, typer.Option("--connections", min=1, max=64, help="Workload sessions.")] = 4,
    max_lock_ms: Annotated[
        float, typer.Option("--max-lock-ms", help="Longest write-blocking lock allowed.")
    ] = 1000.0,
    max_blocked_ms: Annotated[
        float, typer.Option("--max-blocked-ms", help="Longest workload wait allowed.")
    ] = 200.0,
    pg_version: Annotated[
        int | None, typer.Option("--pg-version", help="Embedded server major (no --dsn).")
    ] = None,
    output_format: Annotated[str, typer.Option("--format", help="text, json or sarif.")] = "text",
    empty: Annotated[
        bool, typer.Option("--empty", help="Start from an empty database (plus --schema-sql): no profile.")
    ] = False,
) -> None:
    """Typer entry point; the work is in `run`."""
    from agentddl.checks.trace.judge import Limits
    from agentddl.checks.trace.run import TraceOptions

    if empty and profile is not None:
        raise AgentDDLError("--empty and --profile: choose one (an empty database, or the profile's schema)")
    for path in schema_sql or []:
        if not path.is_file():
            raise AgentDDLError(f"--schema-sql {path}: no such file")
    options = TraceOptions(
        model=_model(profile, use_default=not schema_sql and not empty),
        schema_files=schema_sql or [],
        rows=rows,
        load=load,
        connections=connections,
        limits=Limits(max_lock_ms=max_lock_ms, max_blocked_ms=max_blocked_ms),
        progress=_progress,
    )
    raise typer.Exit(run(migrations, dsn, pg_version, options, output_format, sys.stdout))


def run(
    migrations: list[Path],
    dsn: str | None,
    pg_version: int | None,
    options: TraceOptions,
    output_format: str,
    out: TextIO,
) -> int:
    """Trace, print in the chosen format, return the exit code (0 clean, 1 error findings)."""
    import psycopg

    from agentddl.checks.db import open_server
    from agentddl.checks.report import FORMATS
    from agentddl.checks.trace.execute import error_line
    from agentddl.checks.trace.report import render
    from agentddl.checks.trace.run import trace_migrations
    from agentddl.checks.trace.source import load_migrations

    if output_format not in FORMATS:
        raise AgentDDLError(f"--format: must be one of {', '.join(FORMATS)}, not {output_format!r}")
    if dsn is not None and pg_version is not None:
        raise AgentDDLError("--pg-version starts an embedded server: not with --dsn (or AGENTDDL_DSN)")
    preferred = options.model.profile.engine.version if options.model is not None else None
    load_migrations(migrations, pg_version or preferred or 18)  # a bad file fails before a server starts
    # --pg-version is what the user asked for: a missing major is an error, never another
    # major; the profile's engine version is only a preference (else the newest runs).
    with open_server(dsn, version=pg_version, prefer=preferred) as server:
        try:
            result = trace_migrations(server, migrations, options)
        except psycopg.Error as error:  # the server went away, or the tracer's own reads failed
            raise AgentDDLError(f"trace stopped: {error_line(error)}") from None
    render(result, output_format, out)
    return result.exit_code


def _model(profile: Path | None, use_default: bool) -> SchemaModel | None:
    """The profile's schema model: the given profile, else the default one unless the user
    brings their own schema (--schema-sql)."""
    from agentddl.generator.model import derive
    from agentddl.generator.profile import load_default_profile, load_profile

    if profile is not None:
        return derive(load_profile(profile))
    if not use_default:
        return None
    return derive(load_default_profile())


def _progress(stage: str, count: int) -> None:
    print(f"agentddl: seeding {stage}: {count} rows", file=sys.stderr)
