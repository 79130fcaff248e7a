"""`agentddl apply`: install a profile's schema on a real PostgreSQL two ways and prove it landed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.options import Format, OutputFormat, PgVersion, Profile, Server

EXAMPLES = """
Examples:

  agentddl apply --profile schemas/default.yaml      # embedded server of the profile's major

  agentddl apply -p schemas/default.yaml --pg-version 18 --format json

  agentddl apply -p schemas/default.yaml --server postgresql://me@db/postgres --keep

Exit codes: 0 both installs hold every declared object and are identical, 1 they
don't, 2 usage error or an install that fails (e.g. a server older than the
profile's engine version).
"""
DEPRECATED_ARGUMENT = "agentddl: the PROFILE argument is deprecated: use --profile PROFILE"

ProfileArgument = Annotated[
    Path | None,
    typer.Argument(help="Deprecated: use --profile.", metavar="PROFILE", show_default=False),
]
Keep = Annotated[bool, typer.Option("--keep", help="Keep both databases for a look (with --server).")]


def register(app: typer.Typer) -> None:
    """Add the `apply` command to the CLI."""
    app.command("apply", epilog=EXAMPLES)(apply_command)


def apply_command(
    positional: ProfileArgument = None,
    profile: Profile = None,
    server: Server = None,
    pg_version: PgVersion = None,
    keep: Keep = False,
    output_format: Format = OutputFormat.text,
) -> None:
    """Install the schema on a real PostgreSQL two ways and prove it landed.

    schema.sql goes into one fresh database, the Alembic revision into another; every
    declared object must be in pg_catalog, and both catalogs must be identical.
    """
    from agentddl.checks.verify import ApplyRequest, build_apply_report, run_apply
    from agentddl.generator.errors import AgentDDLError

    if positional is not None and profile is not None:
        raise AgentDDLError("give the profile once: --profile PROFILE")
    if positional is not None:
        print(DEPRECATED_ARGUMENT, file=sys.stderr)
    request = ApplyRequest(profile=profile or positional, server=server, pg_version=pg_version, keep=keep)
    finish(build_apply_report(run_apply(request)), output_format.value)
