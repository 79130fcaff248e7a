"""`agentddl audit`: every access path served by an index at realistic volume (EXPLAIN)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.options import Dsn, Format, OutputFormat, PgVersion, Profile, Server
from agentddl.checks.cli.progress import progress

EXAMPLES = """
Examples:

  agentddl audit                                  # default profile, embedded server, 1,000,000 events

  agentddl audit --profile schemas/default.yaml --rows 200000 --queries my_queries.sql

  agentddl audit --baseline audit-baseline.json --format markdown > audit.md   # CI regression mode

  agentddl audit --pg-version 18 --rows 200000    # on an embedded PostgreSQL 18

  agentddl audit --server postgresql://me@db/postgres    # the scratch database on your server

  agentddl audit --dsn postgresql://me@db/app --existing --profile schemas/default.yaml

The schema goes into a scratch database (on --server; else on --dsn's server; else on
an embedded server of --pg-version, default the profile's engine when installed); with
--existing it is a schema-only copy of the one in --dsn's database, which is never
written. It is seeded to --rows events and the related rows, analyzed, and every access
path is planned. Exit codes: 0 every path served and no error finding, 1 a path not
served (or a baseline regression), 2 usage or connection error.
"""


def audit(
    profile: Profile = None,
    server: Server = None,
    dsn: Dsn = None,
    pg_version: PgVersion = None,
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
    output_format: Format = OutputFormat.text,
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
    from agentddl.checks import audit as audit_family
    from agentddl.checks import verify
    from agentddl.checks.core.report import render
    from agentddl.checks.verify.rules import all_rules as verify_rules
    from agentddl.generator.errors import CheckFailed
    from agentddl.generator.model import derive
    from agentddl.generator.profile import load_default_profile, load_profile

    model = derive(load_profile(profile) if profile is not None else load_default_profile())
    options = audit_family.AuditOptions(
        analyze=not no_analyze,
        catalog_checks=(verify.index_findings,),  # verify's ADV101-104, in the audit's report
        catalog_rules=verify_rules(),
    )
    request = audit_family.AuditRequest(
        model,
        server=server,
        dsn=dsn,
        pg_version=pg_version,
        existing=existing,
        query_files=tuple(queries or ()),
        events=rows,
        options=options,
        baseline=baseline,
        update_baseline=update_baseline,
        cost_growth=cost_growth,
    )
    with progress() as report_progress:
        result = audit_family.run(request, report_progress)
    render(result.report(), output_format.value, sys.stdout)
    if not result.passed:
        raise CheckFailed(result.failure())


def register(app: typer.Typer) -> None:
    app.command(name="audit", epilog=EXAMPLES)(audit)
