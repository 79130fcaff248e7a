"""`agentddl lint`: the static migration linter's command line (options in, report out)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.options import Format, OutputFormat, PgVersion

DEFAULT_PG_VERSION = 16  # agentddl.checks.lint.config.DEFAULT_PG_VERSION (a test keeps them equal)

EXAMPLES = f"""
Examples:

  agentddl lint migrations/versions/          # an Alembic environment or any folder

  agentddl lint 0007_add_index.sql --pg-version 13

  alembic upgrade head --sql | agentddl lint - --runner alembic

  agentddl lint db/ --format sarif > lint.sarif

The target version comes from --pg-version, else the config file's pg_version (or its
profile's engine version), else {DEFAULT_PG_VERSION}.
Exit codes: 0 clean, 1 error findings, 2 usage or config error.
"""


def register(app: typer.Typer) -> None:
    """Add the `lint` command to the CLI."""
    app.command(
        "lint",
        help="Lint SQL migrations and Alembic revisions for locking and breaking hazards.",
        epilog=EXAMPLES,
    )(lint_command)


def lint_command(
    paths: Annotated[list[str], typer.Argument(help="SQL files, folders, Alembic revisions, - for stdin.")],
    pg_version: PgVersion = None,
    runner: Annotated[str | None, typer.Option("--runner", help="psql or alembic.")] = None,
    output_format: Format = OutputFormat.text,
    config: Annotated[Path | None, typer.Option("--config", help="Config file to use.")] = None,
) -> None:
    """Lint, print in the chosen format; exit 0 clean, 1 with an error finding."""
    from agentddl.checks.core.report import render
    from agentddl.checks.lint import LintRequest, run

    request = LintRequest(paths, pg_version=pg_version, runner=runner, config_file=config, stdin=sys.stdin)
    report = run(request).report()
    render(report, output_format.value, sys.stdout)
    raise typer.Exit(report.exit_code)
