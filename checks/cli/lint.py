"""`agentddl lint`: the static migration linter's command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from agentddl.checks.lint.config import (
    DEFAULT_PG_VERSION,
    ConfigError,
    LintConfig,
    find_config_file,
    load_config,
)

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
    pg_version: Annotated[int | None, typer.Option("--pg-version", help="Target PostgreSQL major.")] = None,
    runner: Annotated[str | None, typer.Option("--runner", help="psql or alembic.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="text, json, sarif or github.")] = "text",
    config: Annotated[Path | None, typer.Option("--config", help="Config file to use.")] = None,
) -> None:
    """Typer entry point; the work is in `run`."""
    raise typer.Exit(run(paths, pg_version, runner, output_format, config, sys.stdout, sys.stdin))


def run(
    paths: list[str],
    pg_version: int | None,
    runner: str | None,
    output_format: str,
    config_path: Path | None,
    out: TextIO,
    stdin: TextIO,
) -> int:
    """Lint, print in the chosen format, return the exit code (0 clean, 1 errors)."""
    from agentddl.checks.lint.reporters import FORMATS
    from agentddl.checks.lint.run import lint_paths

    if output_format not in FORMATS:
        raise ConfigError(f"--format: must be one of {', '.join(FORMATS)}, not {output_format!r}")
    settings = _load(config_path).with_overrides(pg_version, runner)
    report = lint_paths(paths, settings, stdin)
    FORMATS[output_format](report, out)
    return report.exit_code


def _load(config_path: Path | None) -> LintConfig:
    from agentddl.checks.lint.rules import rules_by_name

    if config_path is not None and not config_path.is_file():
        raise ConfigError(f"{config_path}: no such config file")
    return load_config(config_path or find_config_file(Path.cwd()), rules_by_name())
