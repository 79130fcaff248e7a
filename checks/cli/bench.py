"""`agentddl bench`: what the profile's hot paths cost on a server, as ratios to its
durable-commit floor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentddl.checks.cli import options
from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.inputs import read_optional, required_profile
from agentddl.checks.cli.progress import progress

if TYPE_CHECKING:
    from agentddl.checks.bench import BenchRequest

EXAMPLES = """
Examples:

  agentddl bench --profile schemas/default.yaml         # a durable embedded server, 10,000 rows

  agentddl bench -p schemas/default.yaml --history 10000,1000000 --format markdown

  agentddl bench -p prod.yaml --server postgresql://me@staging/postgres --clients 16

  agentddl bench -p prod.yaml --dsn postgresql://me@db/prod_copy --path claim_complete

Each hot path runs through the profile's own queries.sql, between two measurements of
the durable-commit floor (one UPDATE by key and one INSERT per commit) on the same
server: its ratio to the floor is the figure that carries from one machine to another.
With neither --server nor --dsn, an embedded server (--pg-version; default the profile's
engine version) is started with fsync, full_page_writes and synchronous_commit on.
--server: a scratch database per --history size, seeded. --dsn: the schema already in
that database, on its own history; bench writes only runs of kind 'agentddl.bench',
tenants named 'agentddl-bench ...' and a schema of its own, deletes them afterwards, and
refuses a database with live runs. Exit codes: 0 measured, 2 usage or connection error.
"""


def register(app: typer.Typer) -> None:
    """Add the `bench` command to the CLI."""
    app.command(
        "bench",
        help="Measure the profile's hot paths as ratios to the server's durable-commit floor.",
        epilog=EXAMPLES,
    )(bench_command)


def bench_command(
    profile: options.Profile,
    dsn: options.Dsn = None,
    server: options.Server = None,
    pg_version: options.PgVersion = None,
    clients: Annotated[int, typer.Option("--clients", help="Client processes, one connection each.")] = 8,
    duration: Annotated[
        float,
        typer.Option(
            "--duration", callback=options.finite_at_least(0), help="Seconds each measured segment runs."
        ),
    ] = 10.0,
    history: Annotated[
        list[str] | None,
        typer.Option("--history", help="Rows of history (events) to seed; a list: 10000,1000000 (repeat)."),
    ] = None,
    path: Annotated[
        list[str] | None, typer.Option("--path", help="Only this hot path (repeat), e.g. claim_complete.")
    ] = None,
    read_depth: Annotated[
        int, typer.Option("--read-depth", help="Checkpoints of each run the latest-checkpoint read looks at.")
    ] = 1000,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="A queries.sql to measure instead of the rendered one.")
    ] = None,
    output_format: options.Format = options.OutputFormat.text,
) -> None:
    """Measure the durable-commit floor and the profile's hot paths (claim + complete, a
    full step, heartbeat, checkpoint save, latest-checkpoint read) on one server, with
    ops/s, latency, WAL, full-page images and CPU per operation, at each history size."""
    arguments = Arguments(
        profile, dsn, server, pg_version, clients, duration, history or [], path or [], read_depth, queries
    )
    from agentddl.checks.bench import build_report, run

    request = _request(arguments)
    with progress() as report_progress:
        result = run(request, progress=report_progress)
    finish(build_report(result), output_format.value)


@dataclass(frozen=True)
class Arguments:
    profile: Path | None
    dsn: str | None
    server: str | None
    pg_version: int | None
    clients: int
    duration: float
    history: list[str]
    paths: list[str]
    read_depth: int
    queries: Path | None


def _request(args: Arguments) -> BenchRequest:
    from agentddl.checks.bench import BenchOptions, BenchRequest
    from agentddl.generator.errors import AgentDDLError

    histories = parse_histories(args.history)
    if args.dsn is not None and args.history:
        raise AgentDDLError("--dsn measures the history already in that database: not with --history")
    bench_options = BenchOptions(
        args.clients, args.duration, histories or (10_000,), tuple(args.paths), args.read_depth
    )
    # bench.run raises every other usage error, before a server starts
    return BenchRequest(
        required_profile(args.profile, "bench", "the profile whose hot paths it measures"),
        bench_options,
        dsn=args.dsn,
        server=args.server,
        pg_version=args.pg_version,
        queries_text=read_optional(args.queries),
    )


def parse_histories(values: list[str]) -> tuple[int, ...]:
    """`10000,1e6` and repeated options -> sizes, ascending, each once."""
    from agentddl.generator.errors import AgentDDLError

    found: set[int] = set()
    for word in (w.strip().replace("_", "") for value in values for w in value.split(",")):
        try:
            number = float(word)
        except ValueError:
            number = -1.0
        if not word or number < 0 or number != int(number):
            raise AgentDDLError(f"--history {word!r}: expected a row count such as 10000 or 1e6")
        found.add(int(number))
    return tuple(sorted(found))
