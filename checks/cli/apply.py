"""`agentddl apply`: install a profile's schema on a real PostgreSQL and prove it landed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import psycopg
import typer
from rich.console import Console
from rich.table import Table

from agentddl.checks.db import alembic_run, open_server
from agentddl.checks.db.catalog import compare_with_model, snapshot
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.server import describe_dsn
from agentddl.generator.errors import CheckFailed
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_profile
from agentddl.generator.render.alembic import render_revision

EXAMPLES = """
Examples:

  agentddl apply schemas/default.yaml                      # embedded server, scratch databases

  agentddl apply schemas/default.yaml --dsn postgresql://me@db/agent_dev --keep
"""


def apply(
    profile: Annotated[Path, typer.Argument(help="Profile YAML file.", metavar="PROFILE")],
    dsn: Annotated[
        str | None, typer.Option("--dsn", envvar="AGENTDDL_DSN", help="Server to use (libpq URI).")
    ] = None,
    keep: Annotated[bool, typer.Option("--keep", help="Keep the databases for a look.")] = False,
) -> None:
    """Install the schema on a real PostgreSQL two ways and prove it landed.

    schema.sql goes into one fresh database, the Alembic revision into another; both
    catalogs must hold every declared constraint and index, and be identical.
    """
    model = derive(load_profile(profile))
    console = Console()
    with open_server(dsn, prefer=model.profile.engine.version) as server:
        console.print(f"PostgreSQL {server.version} at {describe_dsn(server.admin_dsn)}")
        via_sql, via_alembic = server.create_database(), server.create_database()
        try:
            with psycopg.connect(via_sql, autocommit=True) as connection:
                install_schema(connection, model)
            alembic_run.upgrade(render_revision(model), via_alembic)
            _report(console, model, via_sql, via_alembic)
        finally:
            if not keep:
                server.drop_database(via_sql)
                server.drop_database(via_alembic)
            else:
                console.print(f"kept: {via_sql}\nkept: {via_alembic}")


def _report(console: Console, model: SchemaModel, via_sql: str, via_alembic: str) -> None:
    first, second = snapshot(via_sql, model.schema), snapshot(via_alembic, model.schema)
    table = Table(title=f"schema {model.schema}: declared vs pg_catalog")
    for column in ("table", "constraints", "indexes", "partitions"):
        table.add_column(column)
    relations = first["relations"]
    for t in model.tables:
        partitions = sum(1 for name in relations if name.startswith(f"{t.name}_p"))
        declared = 1 + len(t.checks) + len(t.foreign_keys) + len(t.uniques)
        table.add_row(t.name, str(declared), str(len(t.indexes)), str(partitions) if t.partitioning else "-")
    console.print(table)
    problems = compare_with_model(model, first)
    for problem in problems:
        console.print(f"[red]missing[/red] {problem}")
    differing = sorted(k for k in first if first[k] != second[k])
    if differing:
        console.print(f"[red]schema.sql and alembic upgrade differ in: {', '.join(differing)}[/red]")
    if problems or differing:
        raise CheckFailed(f"{len(problems)} declared objects missing, {len(differing)} catalog differences")
    console.print(
        "[green]every declared constraint and index is in pg_catalog; "
        "schema.sql and `alembic upgrade head` give identical catalogs[/green]"
    )


def register(app: typer.Typer) -> None:
    app.command(name="apply", epilog=EXAMPLES)(apply)
