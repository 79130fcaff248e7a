"""`agentddl lint`: the static migration linter's command line (options in, report out)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentddl.checks.cli.finish import finish
from agentddl.checks.cli.options import Format, OutputFormat, PgVersion

DEFAULT_PG_VERSION = 16  # agentddl.checks.lint.config.DEFAULT_PG_VERSION (a test keeps them equal)

EXAMPLES = f"""
Examples:

  agentddl lint migrations/versions/          # an Alembic environment or any folder

  agentddl lint 0007_add_index.sql --pg-version 13

  alembic upgrade head --sql | agentddl lint - --runner alembic

  agentddl lint db/ --format sarif > lint.sarif

  agentddl lint migrations/versions --schema-from postgresql://ro@db/app

  agentddl lint 0007.sql --schema-from db/schema.sql     # or: schemas/default.yaml

  agentddl lint 0007.sql --schema-from postgresql://ro@staging/app --sizes-from postgresql://ro@prod/app

  agentddl lint migrations/ --changed-since origin/main  # only what this branch adds

The target version comes from --pg-version, else the config file's pg_version (or its
profile's engine version), else {DEFAULT_PG_VERSION}.
--schema-from tells the linter the schema before the migrations: a database (read-only:
pg_dump --schema-only), a schema .sql file (e.g. pg_dump output) or an agentddl profile.
It then knows columns' types and nullability (a primary key on a nullable column scans;
shrinking a varchar rewrites and may fail; a "change" to the same type does nothing). A
database also judges statements that fail on existing rows (duplicates under a new
UNIQUE, NULLs under SET NOT NULL, rows a CHECK or FOREIGN KEY rejects, values a type
change cannot hold) with one bounded read-only query each.
--sizes-from gives production's table sizes (a small table's index build is info, not an
error); never taken from --schema-from, which may be a staging copy.
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
    schema_from: Annotated[
        str | None,
        typer.Option(
            "--schema-from",
            metavar="DB|SCHEMA.SQL|PROFILE",
            help="The schema before the migrations: a DSN (read-only), a .sql file or a profile.",
        ),
    ] = None,
    sizes_from: Annotated[
        str | None,
        typer.Option(
            "--sizes-from",
            metavar="DB|STATS.SQL|PROFILE",
            help="Production's table sizes: a DSN (pg_class, read-only), a pg_dump --statistics file"
            " or a profile.",
        ),
    ] = None,
    changed_since: Annotated[
        str | None,
        typer.Option(
            "--changed-since",
            metavar="GIT_REF",
            help="Lint only the files added or changed since this git ref (and not committed yet).",
        ),
    ] = None,
) -> None:
    """Lint, print in the chosen format; exit 0 clean, 1 with an error finding."""
    from agentddl.checks.cli.lint_sources import applied_revisions, data_probe, schema_facts, table_sizes
    from agentddl.checks.lint import LintRequest, run

    schema = schema_facts(schema_from) if schema_from else None
    sizes = table_sizes(sizes_from) if sizes_from else None
    applied = applied_revisions(schema_from) if schema_from else None
    with data_probe(schema_from) as probe:
        request = LintRequest(
            paths,
            pg_version=pg_version,
            runner=runner,
            config_file=config,
            stdin=sys.stdin,
            schema=schema,
            sizes=sizes,
            probe=probe,
            changed_since=changed_since,
            applied_revisions=applied,
        )
        finish(run(request).report(), output_format.value)
