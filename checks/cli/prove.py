"""`agentddl prove`: the schema's guarantees under concurrent worker processes and crashes."""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from agentddl.checks.cli import options
from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.inputs import read_optional, required_profile
from agentddl.checks.cli.progress import progress

if TYPE_CHECKING:
    from agentddl.checks.prove import ProveRequest
    from agentddl.generator.profile import LockStrategy

EXAMPLES = """
Examples:

  agentddl prove --profile schemas/default.yaml                 # embedded server, scratch database

  agentddl prove -p schemas/default.yaml --strategy all --workers 8 --runs 2000

  agentddl prove -p schemas/default.yaml --server postgresql://me@db/postgres --format json

  agentddl prove -p prod.yaml --dsn postgresql://me@db/prod_copy --queries our/queries.sql

  agentddl prove -p schemas/default.yaml --scenario server_crash --server-setting synchronous_commit=off

  agentddl prove -p schemas/default.yaml --scenario failover --replication async

  agentddl prove -p schemas/default.yaml --soak 10 --workers 8     # 10 minutes, a row a minute

--dsn proves the schema already in that database: it writes only runs of kind
'agentddl.prove' and tenants named 'agentddl-prove ...', deletes them afterwards, and
refuses a database with live runs, active attempts or undelivered messages. --server
installs the profile's schema into a scratch database there (needs CREATEDB); with
neither, an embedded server of --pg-version (default: the profile's engine version).
The server_crash scenario kills the server prove started itself (every process at once,
five times) and starts it again: it runs only on the embedded server, and
--server-setting NAME=VALUE configures that server (e.g. synchronous_commit=off: a
server that acknowledges commits before writing them, which the scenario reports broken).
The failover scenario kills that server for good and promotes a streaming replica of it
(--replication sync, the default: nothing acknowledged is lost; async: the commits the
replica had not received are, and the scenario reports them broken).
--soak MINUTES runs only the soak: the queue kept --runs deep and drained for that long,
each minute's runs/s, p99 claim-to-complete, dead tuples and sizes of the hot tables
and indexes; broken when the last minute is 1.2x worse than the second, or run_queue
ends over 2x its size after the first minute.
A profile with hot_state.store: redis also proves the hot projection in Redis (--redis, else
a throwaway redis-server): the hot_* scenarios run after the others.
Exit codes: 0 every scenario held, 1 a scenario broke, 2 usage or connection error.
"""


class Replication(enum.StrEnum):
    """The failover scenario's replica: the primary waits for it at commit, or does not."""

    sync = "sync"
    async_ = "async"


# options whose declaration would not fit on the parameter's line
ServerSettings = Annotated[
    list[str] | None,
    typer.Option(
        "--server-setting", help="NAME=VALUE of the embedded server (repeat).", metavar="NAME=VALUE"
    ),
]
ReplicationOption = Annotated[
    Replication, typer.Option("--replication", help="The failover scenario's replica: sync or async.")
]
SoakMinutes = Annotated[
    float | None,
    typer.Option(
        "--soak",
        callback=options.finite_at_least(0),
        help="Only a soak: the claim race's workload for MINUTES, reported per minute.",
        metavar="MINUTES",
    ),
]
SoakInterval = Annotated[  # a soak's row is a minute; a test's, seconds
    float,
    typer.Option(
        "--soak-interval", hidden=True, callback=options.finite_at_least(0), help="Seconds per soak row."
    ),
]
EXISTING_NOTE = "agentddl: --existing is deprecated and does nothing: --dsn always proves the schema in place"


def register(app: typer.Typer) -> None:
    """Add the `prove` command to the CLI."""
    app.command(
        "prove",
        help="Drive the schema with concurrent worker processes and crashes; report each guarantee.",
        epilog=EXAMPLES,
    )(prove_command)


def prove_command(
    profile: options.Profile,
    dsn: options.Dsn = None,
    server: options.Server = None,
    pg_version: options.PgVersion = None,
    redis: options.Redis = None,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes.")] = 8,
    runs: Annotated[int, typer.Option("--runs", help="Queued runs the claim race drains.")] = 2000,
    strategy: Annotated[
        list[str] | None, typer.Option("--strategy", help="Lock strategy to prove (repeat; 'all').")
    ] = None,
    scenario: Annotated[
        list[str] | None, typer.Option("--scenario", help="Only this scenario (repeat).")
    ] = None,
    lease_seconds: Annotated[int, typer.Option("--lease-seconds", help="Lease of the crash scenarios.")] = 2,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="A queries.sql to prove instead of the rendered one.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of crash points, inputs and orders.")] = 0,
    server_setting: ServerSettings = None,
    soak: SoakMinutes = None,
    soak_interval: SoakInterval = 60.0,
    replication: ReplicationOption = Replication.sync,
    output_format: options.Format = options.OutputFormat.text,
    existing: Annotated[
        bool, typer.Option("--existing", hidden=True, help="Deprecated: --dsn proves in place.")
    ] = False,
) -> None:
    """Install the schema in a scratch database (or prove the one in --dsn), drive it with
    real worker processes that run only the named queries, and report each scenario as
    held or broken."""
    if existing:
        print(EXISTING_NOTE, file=sys.stderr)
    arguments = Arguments(
        profile,
        dsn,
        server,
        pg_version,
        workers,
        runs,
        strategy or [],
        scenario or [],
        lease_seconds,
        redis,
        tuple(server_setting or ()),
        soak,
        soak_interval,
        replication.value,
    )
    run(arguments, queries, seed, output_format.value)


@dataclass(frozen=True)
class Arguments:
    profile: Path | None
    dsn: str | None
    server: str | None
    pg_version: int | None
    workers: int
    runs: int
    strategies: list[str]
    scenarios: list[str]
    lease_seconds: int
    redis: str | None = None
    server_settings: tuple[str, ...] = ()
    soak_minutes: float | None = None
    soak_interval_seconds: float = 60.0
    replication: str = "sync"


def run(args: Arguments, queries: Path | None, seed: int, output_format: str) -> NoReturn:
    """Prove, print, exit; a broken scenario also names itself on stderr."""
    from agentddl.checks.prove import build_report
    from agentddl.checks.prove import run as prove

    request = _request(args, queries, seed)
    with progress() as report_progress:
        result = prove(request, progress=report_progress)
    broken = "" if result.held else f"{len(result.broken)} scenarios broken: {', '.join(result.broken)}"
    finish(build_report(result), output_format, broken)


def _request(args: Arguments, queries: Path | None, seed: int) -> ProveRequest:
    from agentddl.checks.prove import ProveOptions, ProveRequest

    prove_options = ProveOptions(
        args.workers,
        args.runs,
        args.lease_seconds,
        seed,
        tuple(args.scenarios),
        soak_minutes=args.soak_minutes,
        soak_interval_seconds=args.soak_interval_seconds,
        replication=args.replication,
    )
    return ProveRequest(
        required_profile(args.profile, "prove", "the profile whose guarantees it proves"),
        prove_options,
        dsn=args.dsn,
        server=args.server,
        pg_version=args.pg_version,
        strategies=tuple(_strategies(args.strategies)),
        queries_text=read_optional(queries),
        redis=args.redis,
        server_settings=tuple(_setting(text) for text in args.server_settings),
    )


def _setting(text: str) -> tuple[str, str]:
    from agentddl.generator.errors import AgentDDLError

    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not name.strip().replace("_", "").replace(".", "").isalnum():
        raise AgentDDLError(f"--server-setting {text!r}: expected NAME=VALUE, e.g. synchronous_commit=off")
    return name.strip(), value.strip()


def _strategies(names: list[str]) -> list[LockStrategy]:
    from agentddl.generator.errors import AgentDDLError
    from agentddl.generator.profile import LockStrategy

    if "all" in names:
        return list(LockStrategy)
    try:
        return [LockStrategy(n) for n in names]
    except ValueError as error:
        choices = ", ".join(s.value for s in LockStrategy)
        raise AgentDDLError(f"--strategy: expected all or one of {choices}: {error}") from error
