"""`agentddl audit`: every access path served by an index (EXPLAIN): a database in place
(`--dsn`), or the profile's schema seeded to volume on a scratch database."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.options import Dsn, Format, OutputFormat, PgVersion, Profile, Server, finite_at_least
from agentddl.checks.cli.progress import progress

EXAMPLES = """
Examples:

  agentddl audit --dsn postgresql://me@db/app --queries hot_paths.sql          # in place, read-only

  agentddl audit --dsn postgresql://me@db/app --from-stats --top 30            # pg_stat_statements' workload

  agentddl audit --dsn postgresql://me@db/app --schema billing --queries q.sql --sample 0

  agentddl audit                                  # default profile, embedded server, 1,000,000 events

  agentddl audit --profile schemas/default.yaml --rows 200000 --queries my_queries.sql

  agentddl audit --baseline audit-baseline.json --format markdown > audit.md   # CI regression mode

  agentddl audit --pg-version 18 --rows 200000    # on an embedded PostgreSQL 18

With --dsn the database is audited in place, on its own data and statistics: a
read-only session (statement_timeout, lock_timeout) that takes no lock stronger than
ACCESS SHARE and writes nothing. Its workload: --queries files, --from-stats (the top
statements of pg_stat_statements), --profile's paths. Writes are planned by their read
part (--analyze-writes runs them under EXPLAIN ANALYZE, rolled back). What-if questions
(is an index redundant for the workload, does a suggested index help) go to hypopg when
the database has it, and to a scratch clone with --sample rows per table, on --server
or an embedded server of the database's major, never on --dsn's server.

Without --dsn the profile's schema goes into a scratch database (on --server, else an
embedded server of --pg-version, default the profile's engine when installed), seeded to
--rows events and the related rows, analyzed, and every access path is planned. Exit
codes: 0 every path served and no error finding, 1 a path not served (or a baseline
regression), 2 usage or connection error.
"""


Existing = Annotated[bool, typer.Option("--existing", hidden=True, help="Deprecated: --dsn audits in place.")]
Queries = Annotated[
    list[Path] | None, typer.Option("--queries", help="Your own named-query file (repeatable).")
]
FromStats = Annotated[
    bool, typer.Option("--from-stats", help="With --dsn: pg_stat_statements' top statements are audited too.")
]
Top = Annotated[
    int, typer.Option("--top", min=1, help="With --from-stats: how many statements (by total time).")
]
Schema = Annotated[
    str | None, typer.Option("--schema", help="With --dsn: the schema to audit (default: the only one).")
]
Sample = Annotated[
    int, typer.Option("--sample", min=0, help="With --dsn: rows per table in the what-if clone (0: none).")
]
AnalyzeWrites = Annotated[
    bool, typer.Option("--analyze-writes", help="With --dsn: run writes under EXPLAIN ANALYZE (rolled back).")
]
Rows = Annotated[
    int, typer.Option("--rows", min=1, help="Without --dsn: events to seed (other tables in proportion).")
]
Baseline = Annotated[
    Path | None, typer.Option("--baseline", help="Plan baseline JSON: written if missing, else compared.")
]
UpdateBaseline = Annotated[bool, typer.Option("--update-baseline", help="Rewrite --baseline.")]
CostGrowth = Annotated[
    float,
    typer.Option(
        "--cost-growth", callback=finite_at_least(1), help="Fail when a path's cost exceeds baseline x this."
    ),
]
NoAnalyze = Annotated[bool, typer.Option("--no-analyze", help="Plan only (no EXPLAIN ANALYZE).")]
MaxPathMs = Annotated[
    float | None,
    typer.Option(
        "--max-path-ms",
        callback=finite_at_least(0.001),
        help="Fail a path whose measured execution takes longer (ms); a query's -- budget: line wins.",
    ),
]
MaxReadShare = Annotated[
    float | None,
    typer.Option(
        "--max-read-share",
        callback=finite_at_least(0.001),
        help="Fail a path that reads this share of a large table or more (default 0.5: half its rows).",
    ),
]


def audit(
    profile: Profile = None,
    server: Server = None,
    dsn: Dsn = None,
    pg_version: PgVersion = None,
    existing: Existing = False,
    queries: Queries = None,
    from_stats: FromStats = False,
    top: Top = 20,
    schema: Schema = None,
    sample: Sample = 100_000,
    analyze_writes: AnalyzeWrites = False,
    rows: Rows = 1_000_000,
    output_format: Format = OutputFormat.text,
    baseline: Baseline = None,
    update_baseline: UpdateBaseline = False,
    cost_growth: CostGrowth = 2.0,
    no_analyze: NoAnalyze = False,
    max_path_ms: MaxPathMs = None,
    max_read_share: MaxReadShare = None,
) -> None:
    """Prove every access path is served by an index: a database in place, or a profile at volume."""
    from agentddl.checks import audit as audit_family
    from agentddl.checks.audit.judge import Thresholds
    from agentddl.generator.model import derive
    from agentddl.generator.profile import load_profile

    limits = Thresholds(max_path_ms=max_path_ms)
    if max_read_share is not None:
        limits = replace(limits, read_share=max_read_share)
    if existing:
        print("agentddl: --existing is deprecated: --dsn audits that database in place", file=sys.stderr)
    request = audit_family.AuditRequest(
        derive(load_profile(profile)) if profile is not None else None,  # None: the default, or --dsn alone
        server=server,
        dsn=dsn,
        pg_version=pg_version,
        existing=existing,
        query_files=tuple(queries or ()),
        events=rows,
        options=audit_family.AuditOptions(limits, analyze=not no_analyze),
        baseline=baseline,
        update_baseline=update_baseline,
        cost_growth=cost_growth,
        schema=schema,
        from_stats=from_stats,
        stats_top=top,
        sample_rows=sample,
        analyze_writes=analyze_writes,
    )
    with progress() as report_progress:
        result = audit_family.run(request, report_progress)
    finish(audit_family.build_report(result), output_format.value, result.failure())


def register(app: typer.Typer) -> None:
    app.command(name="audit", epilog=EXAMPLES)(audit)
