"""`agentddl prove`: the schema's guarantees under concurrent worker processes and crashes."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from agentddl.generator.errors import AgentDDLError, CheckFailed

if TYPE_CHECKING:
    from agentddl.generator.profile import LockStrategy

EXAMPLES = """
Examples:

  agentddl prove --profile schemas/default.yaml                 # embedded server, scratch database

  agentddl prove --profile schemas/default.yaml --strategy all --workers 8 --runs 2000

  agentddl prove --profile schemas/default.yaml --dsn postgresql://me@db/empty_db --format json

  agentddl prove --profile prod.yaml --dsn postgresql://me@db/prod_copy --existing

--existing proves the schema already in the database: it writes only runs of kind
'agentddl.prove' and tenants named 'agentddl-prove ...', deletes them afterwards, and
refuses a database with live runs, active attempts or undelivered messages.
Exit codes: 0 every scenario held, 1 a scenario broke, 2 usage or connection error.
"""


def register(app: typer.Typer) -> None:
    """Add the `prove` command to the CLI."""
    app.command(
        "prove",
        help="Drive the schema with concurrent worker processes and crashes; report each guarantee.",
        epilog=EXAMPLES,
    )(prove_command)


def prove_command(
    profile: Annotated[Path, typer.Option("--profile", help="Profile YAML file.")],
    dsn: Annotated[
        str | None, typer.Option("--dsn", envvar="AGENTDDL_DSN", help="Server or database (libpq URI).")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes.")] = 8,
    runs: Annotated[int, typer.Option("--runs", help="Queued runs the claim race drains.")] = 2000,
    existing: Annotated[bool, typer.Option("--existing", help="Prove the schema already in --dsn.")] = False,
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
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Install the schema (or use --existing), drive it with real worker processes that run
    only the named queries, and report each scenario as held or broken."""
    arguments = Arguments(
        profile, dsn, workers, runs, existing, strategy or [], scenario or [], lease_seconds
    )
    run(arguments, queries, seed, output_format, sys.stdout)


@dataclass(frozen=True)
class Arguments:
    profile: Path
    dsn: str | None
    workers: int
    runs: int
    existing: bool
    strategies: list[str]
    scenarios: list[str]
    lease_seconds: int


def run(args: Arguments, queries: Path | None, seed: int, output_format: str, out: TextIO) -> None:
    """Prove, print, raise CheckFailed (exit 1) when a scenario broke."""
    from agentddl.checks.prove import ProveOptions, prove
    from agentddl.checks.prove.report import WRITERS
    from agentddl.generator.profile import load_profile

    if output_format not in WRITERS:
        raise AgentDDLError(f"--format: must be one of {', '.join(WRITERS)}, not {output_format!r}")
    options = ProveOptions(args.workers, args.runs, args.lease_seconds, seed, tuple(args.scenarios))
    report = prove(
        load_profile(args.profile),
        options=options,
        dsn=args.dsn,
        existing=args.existing,
        strategies=_strategies(args.strategies),
        queries_text=_read(queries),
    )
    WRITERS[output_format](report, out)
    if not report.held:
        broken = [f"{s.strategy}/{s.name}" for s in report.scenarios if not s.held]
        raise CheckFailed(f"{len(broken)} scenarios broken: {', '.join(broken)}")


def _strategies(names: list[str]) -> list[LockStrategy]:
    from agentddl.generator.profile import LockStrategy

    if "all" in names:
        return list(LockStrategy)
    try:
        return [LockStrategy(n) for n in names]
    except ValueError as error:
        choices = ", ".join(s.value for s in LockStrategy)
        raise AgentDDLError(f"--strategy: expected all or one of {choices}: {error}") from error


def _read(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise AgentDDLError(f"{path}: cannot read: {error.strerror}") from error
