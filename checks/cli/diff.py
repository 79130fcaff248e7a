"""`agentddl diff`: the steps from one profile's schema to another's (or from a live
database to a profile), each with its lock, reads and duration."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.options import OutputFormat, Server

# Not the shared --dsn: $AGENTDDL_DSN (set for `alembic upgrade`) must not silently switch
# this command to the live catalog.
LiveDsn = Annotated[
    str | None,
    typer.Option("--dsn", help="Start from this database's catalog instead of OLD."),
]

EXAMPLES = """
Examples:

  agentddl diff schemas/default.yaml schemas/examples/lease.yaml

  agentddl diff migrations/ schemas/default.yaml     # from the last agentddl revision

  agentddl diff migrations/ schemas/default.yaml --format markdown > pr-comment.md

  agentddl diff --dsn postgresql://me@db/app schemas/default.yaml   # from a live database

OLD and NEW are profile files, revisions (the profile they record) or folders of revisions
(the last agentddl revision's). With --dsn, the delta starts from the database's catalog
(compared with a fresh install of NEW on --server, default the --dsn's server).
Exit codes: 0 every change has an online form, 1 a change is refused (its plan is printed),
2 usage, profile or connection error.
"""


def diff(
    profiles: Annotated[
        list[Path],
        typer.Argument(
            help="OLD NEW (profiles, revisions or folders); with --dsn: NEW.", metavar="[OLD] NEW"
        ),
    ],
    dsn: LiveDsn = None,
    server: Server = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format (markdown: a PR comment).")
    ] = OutputFormat.text,
) -> None:
    """Show the online steps from one profile's schema to another's: locks, reads, duration."""
    from agentddl.checks.diff import DiffRequest, build_report, run
    from agentddl.generator.errors import AgentDDLError

    if server is not None and dsn is None:
        raise AgentDDLError("--server holds the fresh install --dsn is compared with: give --dsn too")
    wanted = 1 if dsn else 2
    if len(profiles) != wanted:
        usage = "--dsn DB NEW" if dsn else "OLD NEW"
        raise AgentDDLError(f"diff takes {usage}: got {len(profiles)} path(s)")
    old = None if dsn else profiles[0]
    finish(build_report(run(DiffRequest(old, profiles[-1], dsn=dsn, server=server))), output_format.value)


def register(app: typer.Typer) -> None:
    app.command(name="diff", epilog=EXAMPLES)(diff)
