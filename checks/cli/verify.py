"""`agentddl verify`: a live schema's invariants read from pg_catalog, with or without a
profile to verify against."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from agentddl.generator.errors import AgentDDLError

if TYPE_CHECKING:
    from agentddl.generator.model import SchemaModel

EXAMPLES = """
Examples:

  agentddl verify --dsn postgresql://me@db/app          # hygiene, all schemas

  agentddl verify --dsn $DSN --profile schemas/default.yaml

  agentddl verify --profile schemas/default.yaml  # fresh embedded install

  agentddl verify --dsn $DSN --schema billing --format sarif > verify.sarif

Without --dsn (or AGENTDDL_DSN), the profile's schema is installed on an
embedded scratch server and verified there. --profile compares with the
profile's schema.sql installed in a scratch database on the same server
(needs CREATEDB); the target itself is only read.
Exit codes: 0 no error-severity finding, 1 error findings, 2 usage or
connection error.
"""


def register(app: typer.Typer) -> None:
    """Add the `verify` command to the CLI."""
    app.command(
        "verify",
        help="Check a live schema's invariants in pg_catalog (generic hygiene; against a profile).",
        epilog=EXAMPLES,
    )(verify_command)


DsnOption = Annotated[
    str | None, typer.Option("--dsn", help="Database to verify (libpq URI); else $AGENTDDL_DSN.")
]
ProfileOption = Annotated[Path | None, typer.Option("--profile", help="Profile YAML to verify against.")]
SchemaOption = Annotated[
    list[str] | None,
    typer.Option("--schema", help="Schema to verify (repeatable); default: the profile's, else all."),
]
FormatOption = Annotated[str, typer.Option("--format", help="text, json or sarif.")]


def verify_command(
    dsn: DsnOption = None,
    profile: ProfileOption = None,
    schema: SchemaOption = None,
    output_format: FormatOption = "text",
) -> None:
    """Typer entry point; the work is in `run`."""
    raise typer.Exit(run(dsn, profile, schema or [], output_format, sys.stdout))


def run(dsn: str | None, profile: Path | None, schemas: list[str], output_format: str, out: TextIO) -> int:
    """Verify, print in the chosen format, return the exit code (0 clean, 1 errors)."""
    from agentddl.checks.report import FORMATS, render_findings
    from agentddl.checks.verify.run import rule_infos
    from agentddl.checks.verify.session import verify_installed, verify_target

    if output_format not in FORMATS:
        raise AgentDDLError(f"--format: must be one of {', '.join(FORMATS)}, not {output_format!r}")
    model = _model(profile)
    if model is not None and len(schemas) > 1:
        raise AgentDDLError("--profile verifies one schema: give at most one --schema")
    dsn = dsn or os.environ.get("AGENTDDL_DSN") or None
    if dsn is not None:
        result = verify_target(dsn, model, schemas)
    elif model is not None:
        result = verify_installed(model, schemas)
    else:
        raise AgentDDLError("verify needs --dsn (or AGENTDDL_DSN), or --profile to verify a fresh install")
    findings, about = result.findings, result.about
    render_findings(findings, output_format, out, tool="verify", rules=rule_infos(), extra=about)
    return 1 if any(f.is_error for f in findings) else 0


def _model(profile: Path | None) -> SchemaModel | None:
    if profile is None:
        return None
    from agentddl.generator.model import derive
    from agentddl.generator.profile import load_profile

    return derive(load_profile(profile))
