"""`agentddl verify`: a live schema's invariants read from pg_catalog, with or without a
profile to verify against."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.options import Dsn, Format, OutputFormat, PgVersion, Profile, Server

EXAMPLES = """
Examples:

  agentddl verify --dsn postgresql://me@db/app          # hygiene, all schemas

  agentddl verify --dsn $DSN --profile schemas/default.yaml

  agentddl verify --profile schemas/default.yaml  # fresh embedded install

  agentddl verify --dsn $DSN --schema billing --format sarif > verify.sarif

  agentddl verify --citus --profile scaled.yaml --queries our/queries.sql

  agentddl verify --citus --generated out/scaled   # a folder generate wrote

Without --dsn (or AGENTDDL_DSN), the profile's schema is installed on an
embedded scratch server (--pg-version: its major; --server: yours) and
verified there. --profile compares with the profile's schema.sql installed
in a scratch database on the same server (or --server; needs CREATEDB);
the target itself is only read.
--citus checks statically against Citus's rules (no server): keys hold the
distribution column, foreign keys are co-located, named queries stay with one
tenant, modifications use functions Citus can run. Its inputs: the profile's
generated schema.sql, citus.sql and queries.sql (--profile, with
distribution: citus), or a folder generate wrote (--generated); plus any
--queries files.
Exit codes: 0 no error-severity finding, 1 error findings, 2 usage or
connection error.
"""

Schemas = Annotated[
    list[str] | None,
    typer.Option("--schema", help="Schema to verify (repeatable); default: the profile's, else all."),
]


Citus = Annotated[
    bool, typer.Option("--citus", help="Check statically against Citus's rules for distributed tables.")
]
Generated = Annotated[
    Path | None,
    typer.Option(
        "--generated", help="With --citus: a folder `agentddl generate` wrote (schema.sql, citus.sql)."
    ),
]
Queries = Annotated[
    list[Path] | None,
    typer.Option("--queries", help="With --citus: a named-query file (aiosql) to check too (repeatable)."),
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
    citus: Citus = False,
    generated: Generated = None,
    queries: Queries = None,
) -> None:
    """Verify, print the report in the chosen format; exit 0 clean, 1 error findings."""
    if citus:
        finish(_citus_report(profile, generated, queries or []), output_format.value)
    from agentddl.checks.verify import VerifyRequest, build_report, run

    request = VerifyRequest(
        dsn=dsn, profile=profile, schemas=schema or [], server=server, pg_version=pg_version
    )
    finish(build_report(run(request)), output_format.value)


def _citus_report(profile: Path | None, generated: Path | None, queries: list[Path]) -> Any:
    from agentddl.checks.citus import CitusRequest, Source, run
    from agentddl.checks.cli.inputs import read_text
    from agentddl.generator.errors import AgentDDLError
    from agentddl.generator.profile import load_profile

    extra = tuple(Source(str(path), read_text(path)) for path in queries)
    if generated is not None:
        return run(CitusRequest.from_directory(generated, extra)).report()
    if profile is None:
        raise AgentDDLError("--citus needs --profile (with distribution: citus) or --generated DIR")
    return run(CitusRequest.from_profile(load_profile(profile), extra)).report()
