"""`agentddl audit`: every access path served by an index at realistic volume (EXPLAIN)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from agentddl.generator.errors import AgentDDLError, CheckFailed

if TYPE_CHECKING:
    from agentddl.checks.audit.run import AuditResult

EXAMPLES = """
Examples:

  agentddl audit                                  # default profile, embedded server, 1,000,000 events

  agentddl audit --profile schemas/default.yaml --rows 200000 --queries my_queries.sql

  agentddl audit --baseline audit-baseline.json --format markdown > audit.md   # CI regression mode

  agentddl audit --dsn postgresql://me@db/app --existing --profile schemas/default.yaml

The schema goes into a scratch database (with --existing: a schema-only copy of the one
in --dsn's database), is seeded to --rows events and the related rows, analyzed, and
every access path is planned. Exit codes: 0 every path served and no error finding,
1 a path not served (or a baseline regression), 2 usage or connection error.
"""


def audit(
    profile: Annotated[
        Path | None, typer.Option("--profile", help="Profile YAML (default: the packaged default.yaml).")
    ] = None,
    dsn: Annotated[
        str | None, typer.Option("--dsn", envvar="AGENTDDL_DSN", help="Server to use (libpq URI).")
    ] = None,
    existing: Annotated[
        bool,
        typer.Option("--existing", help="Audit the schema already in --dsn's database (a copy is seeded)."),
    ] = False,
    queries: Annotated[
        list[Path] | None, typer.Option("--queries", help="Your own named-query file (repeatable).")
    ] = None,
    rows: Annotated[
        int, typer.Option("--rows", min=1, help="Events to seed (other tables in proportion).")
    ] = 1_000_000,
    output_format: Annotated[str, typer.Option("--format", help="text, json, sarif or markdown.")] = "text",
    baseline: Annotated[
        Path | None, typer.Option("--baseline", help="Plan baseline JSON: written if missing, else compared.")
    ] = None,
    update_baseline: Annotated[bool, typer.Option("--update-baseline", help="Rewrite --baseline.")] = False,
    cost_growth: Annotated[
        float, typer.Option("--cost-growth", min=1.0, help="Fail when a path's cost exceeds baseline x this.")
    ] = 2.0,
    no_analyze: Annotated[bool, typer.Option("--no-analyze", help="Plan only (no EXPLAIN ANALYZE).")] = False,
) -> None:
    """Prove every access path is served by an index at realistic volume (EXPLAIN)."""
    from agentddl.checks.audit.report import FORMATS, render
    from agentddl.checks.audit.run import AuditOptions
    from agentddl.checks.audit.session import AuditRequest, run_audit
    from agentddl.generator.model import derive
    from agentddl.generator.profile import load_default_profile, load_profile

    if output_format not in FORMATS:
        raise AgentDDLError(f"--format {output_format!r}: expected one of {', '.join(FORMATS)}")
    model = derive(load_profile(profile) if profile is not None else load_default_profile())
    request = AuditRequest(
        model,
        dsn,
        existing,
        tuple(queries or ()),
        rows,
        AuditOptions(analyze=not no_analyze),
        baseline,
        update_baseline,
        cost_growth,
    )
    console = Console(stderr=True)
    with console.status(f"seeding {rows:,} events...") as status:

        def progress(table: str, loaded: int) -> None:
            status.update(f"seeded {table}: {loaded:,} rows" if table != "analyze" else "auditing...")

        result = run_audit(request, progress)
    render(result, output_format, sys.stdout)
    if not result.passed:
        raise CheckFailed(_failure(result))


def _failure(result: AuditResult) -> str:
    if failed := result.failed_paths:
        return f"{len(failed)} access path(s) not served: {', '.join(failed)}"
    if regressed := result.regressed_paths:
        return f"{len(regressed)} access path(s) regressed against the baseline: {', '.join(regressed)}"
    return "error findings (see above)"


def register(app: typer.Typer) -> None:
    app.command(name="audit", epilog=EXAMPLES)(audit)
