"""`agentddl trace`: apply migrations to a scratch copy of the current schema on a real
PostgreSQL and report what each statement locked, rewrote, scanned and blocked."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli import options
from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.progress import progress

EXAMPLES = """
Examples:

  agentddl trace migrations/versions/0002_add_index.py          # on the default profile's schema

  agentddl trace 0007.sql --schema-sql db/schema.sql --server postgresql://me@db/postgres

  agentddl trace add_index.sql --profile schemas/default.yaml --rows 100000 --load --format json

  agentddl trace migrations/versions --dsn postgresql://ro@db/app --sample 10000

  agentddl trace 0007.sql --clone postgresql://ro@db/app --statistics --pg-version 18

The scratch database gets the schema of --dsn (also spelled --clone: the same option), a
database of yours that is only read (pg_dump --schema-only in a read-only session; with
--sample N up to N rows per table copied, foreign keys kept; with --statistics its planner
statistics, restored on a PostgreSQL 18 scratch server). It is created on --server, else
on --dsn's server, else (or with --pg-version) on an embedded server. Without --dsn it gets
the profile's schema (default: schemas/default.yaml; none with --schema-sql and no
--profile, or with --empty). Then the --schema-sql files (e.g. pg_dump --schema-only, or
earlier migrations), then --rows seeded events; it is dropped afterwards. No other
database is changed.
Alembic revisions run with Alembic (`alembic upgrade` on the scratch database, agentddl's
own env.py: yours is not run) and every statement is traced where it runs, loops and
autocommit blocks included, on the line of the op.* call that issued it; --offline reads
them as `alembic upgrade --sql` prints them. SQL files (and `--sql` output) run as psql would.
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


Migrations = Annotated[
    list[Path], typer.Argument(help="SQL files, Alembic revisions or folders.", metavar="MIGRATION...")
]
CloneDsn = Annotated[
    str | None,
    typer.Option(
        "--dsn",
        "--clone",
        envvar=options.DSN_ENV,
        show_envvar=True,
        help="A database of yours whose schema the scratch database copies (only read). "
        "--clone is the same option.",
    ),
]
Sample = Annotated[
    int, typer.Option("--sample", min=0, help="With --dsn: rows per table to copy (foreign keys kept).")
]
Statistics = Annotated[
    bool,
    typer.Option(
        "--statistics", help="With --dsn: copy its planner statistics (a PostgreSQL 18 scratch server)."
    ),
]
SchemaSql = Annotated[list[Path] | None, typer.Option("--schema-sql", help="SQL applied first (repeatable).")]
Empty = Annotated[
    bool, typer.Option("--empty", help="Start from an empty database (plus --schema-sql): no profile.")
]
Rows = Annotated[int, typer.Option("--rows", min=0, help="Events to seed into the profile's schema.")]
Load = Annotated[bool, typer.Option("--load", help="Run the profile's queries concurrently.")]
Connections = Annotated[int, typer.Option("--connections", min=1, max=64, help="Workload sessions.")]
Offline = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="Read Alembic revisions as `alembic upgrade --sql` prints them instead of running "
        "them with Alembic (run-time loops then show as comments).",
    ),
]
MaxLockMs = Annotated[
    float,
    typer.Option(
        "--max-lock-ms", callback=options.finite_at_least(0), help="Longest write-blocking lock allowed."
    ),
]
MaxBlockedMs = Annotated[
    float,
    typer.Option(
        "--max-blocked-ms", callback=options.finite_at_least(0), help="Longest workload wait allowed."
    ),
]


def trace_command(
    migrations: Migrations,
    dsn: CloneDsn = None,
    sample: Sample = 0,
    statistics: Statistics = False,
    server: options.Server = None,
    pg_version: options.PgVersion = None,
    profile: options.Profile = None,
    output_format: options.Format = options.OutputFormat.text,
    schema_sql: SchemaSql = None,
    empty: Empty = False,
    rows: Rows = 0,
    load: Load = False,
    connections: Connections = 4,
    offline: Offline = False,
    max_lock_ms: MaxLockMs = 1000.0,
    max_blocked_ms: MaxBlockedMs = 200.0,
) -> None:
    """Typer entry point: the work is agentddl.checks.trace.run."""
    from agentddl.checks.trace import Limits, TraceRequest, build_report, run

    # Copying a database or seeding rows is the long wait before the trace: a live status
    # (or lines on stderr) once the library reports it; otherwise stderr stays empty.
    status = progress() if dsn is not None or rows else contextlib.nullcontext(_quiet)
    with status as report:
        result = run(
            TraceRequest(
                migrations=migrations,
                dsn=dsn,
                sample=sample,
                statistics=statistics,
                profile=profile,
                empty=empty,
                schema_files=schema_sql or [],
                rows=rows,
                load=load,
                connections=connections,
                limits=Limits(max_lock_ms=max_lock_ms, max_blocked_ms=max_blocked_ms),
                server=server,
                pg_version=pg_version,
                progress=report,
                offline=offline,
            )
        )
    finish(build_report(result), output_format.value)


def _quiet(_line: str) -> None:
    """No progress to show."""
