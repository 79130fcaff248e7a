"""`agentddl verify`: a live schema's invariants read from pg_catalog, with or without a
profile to verify against."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentddl.checks.cli.options import Dsn, Format, OutputFormat, PgVersion, Profile, Server

EXAMPLES = """
Examples:

  agentddl verify --dsn postgresql://me@db/app          # hygiene, all schemas

  agentddl verify --dsn $DSN --profile schemas/default.yaml

  agentddl verify --profile schemas/default.yaml  # fresh embedded install

  agentddl verify --dsn $DSN --schema billing --format sarif > verify.sarif

Without --dsn (or AGENTDDL_DSN), the profile's schema is installed on an
embedded scratch server (--pg-version: its major; --server: yours) and
verified there. --profile compares with the profile's schema.sql installed
in a scratch database on the same server (or --server; needs CREATEDB);
the target itself is only read.
Exit codes: 0 no error-severity finding, 1 error findings, 2 usage or
connection error.
"""

Schemas = Annotated[
    list[str] | None,
    typer.Option("--schema", help="Schema to verify (repeatable); default: the profile's, else all."),
]


def register(app: typer.Typer) -> None:
    """Add the `verify` command to the CLI."""
    app.command(
        "verify",
        help="Check a live schema's invariants in pg_catalog (generic hygiene; against a profile).",
        epilog=EXAMPLES,
    )(verify_command)


def verify_command(
    dsn: Dsn = None,
    profile: Profile = None,
    schema: Schemas = None,
    server: Server = None,
    pg_version: PgVersion = None,
    output_format: Format = OutputFormat.text,
) -> None:
    """Verify, print the report in the chosen format; exit 0 clean, 1 error findings."""
    from agentddl.checks.core.report import render
    from agentddl.checks.verify import VerifyRequest, run

    request = VerifyRequest(
        dsn=dsn, profile=profile, schemas=schema or [], server=server, pg_version=pg_version
    )
    report = run(request).report()
    render(report, output_format.value, sys.stdout)
    raise typer.Exit(report.exit_code)
