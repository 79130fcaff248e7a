"""`agentddl check`: the CI gate for a schema change (lint, trace on a clone, verify,
audit against a baseline): one exit code, one report in every format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli import options
from agentddl.checks.cli.audit import Baseline, CostGrowth, Queries
from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.progress import progress
from agentddl.checks.cli.trace import Migrations, Sample, Statistics

EXAMPLES = """
Examples:

  agentddl check migrations/versions                      # lint only: no database to copy

  agentddl check migrations/versions --changed-since origin/main --clone "$STAGING_DSN"

  agentddl check db/ --clone postgresql://ro@db/app --queries q.sql --baseline audit.json

  agentddl check db/ --clone "$STAGING_DSN" --sample 10000 --format markdown > comment.md

Steps: (1) lint the migrations, with the clone's schema, major, Alembic version and
rows (--schema-from the clone); table sizes from --sizes-from or the config's table_rows
only (a staging clone's are not production's); (2) trace them on a scratch copy of the clone (its schema,
--sample N rows per table, --statistics), created on --server, else the clone's server
(needs CREATEDB), else with --pg-version an embedded one; (3) verify the migrated copy:
the generic rules, counting only findings the clone itself does not have; (4) audit the
--queries workload (default: the query files the --baseline names) on the migrated copy,
compared with --baseline (written when the file is missing). The clone is only read.
Without --clone only the lint runs.
--changed-since REF checks only the migrations added or changed since that git ref.
Exit codes: 0 every step held, 1 an error finding in any step, 2 usage or connection error.
"""

Clone = Annotated[
    str | None,
    typer.Option(
        "--clone",
        "--dsn",
        metavar="DSN",
        help="The database the change is checked against (production, staging): only read. "
        "--dsn is the same option.",
    ),
]
ChangedSince = Annotated[
    str | None,
    typer.Option("--changed-since", metavar="REF", help="Only the migrations added or changed since REF."),
]
Schema = Annotated[
    str | None, typer.Option("--schema", help="The schema verified and audited (default: every one).")
]
Config = Annotated[Path | None, typer.Option("--config", help="The linter's config file.")]
SizesFrom = Annotated[
    str | None,
    typer.Option(
        "--sizes-from",
        metavar="DB|DUMP.SQL|PROFILE",
        help="Production's table sizes for the lint, as lint --sizes-from (default: none, not the clone's).",
    ),
]


def register(app: typer.Typer) -> None:
    """Add the `check` command to the CLI."""
    app.command(
        "check",
        help="The CI gate for a schema change: lint, trace on a clone, verify, audit; one report.",
        epilog=EXAMPLES,
    )(check_command)


def check_command(
    migrations: Migrations,
    changed_since: ChangedSince = None,
    dsn: Clone = None,
    sample: Sample = 0,
    statistics: Statistics = False,
    queries: Queries = None,
    baseline: Baseline = None,
    cost_growth: CostGrowth = 2.0,
    schema: Schema = None,
    config: Config = None,
    sizes_from: SizesFrom = None,
    server: options.Server = None,
    pg_version: options.PgVersion = None,
    output_format: options.Format = options.OutputFormat.text,
) -> None:
    """Typer entry point: the work is agentddl.checks.gate.run."""
    from agentddl.checks.cli.lint_sources import table_sizes
    from agentddl.checks.gate import CheckRequest, build_report, run

    sizes = table_sizes(sizes_from) if sizes_from else None
    with progress() as report:
        result = run(
            CheckRequest(
                migrations=migrations,
                changed_since=changed_since,
                clone=dsn,
                sample=sample,
                statistics=statistics,
                queries=tuple(queries or ()),
                baseline=baseline,
                cost_growth=cost_growth,
                schema=schema,
                config_file=config,
                sizes=sizes,
                pg_version=pg_version,
                server=server,
                progress=report,
            )
        )
    finish(build_report(result), output_format.value)
