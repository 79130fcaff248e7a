"""The scratch database a trace runs in: a fresh database on the server that first
receives "the current schema" (a copy of the user's database, a profile's generated
schema, the user's own schema SQL files), and optionally seeded rows. No other database
is changed: a copied one is only read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.core.progress import Progress
from agentddl.checks.db import DatabaseError, PostgresServer, connect, database_error, error_line
from agentddl.checks.db.clone import CloneSource, clone_into
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.seed.load import Progress as SeedProgress
from agentddl.checks.db.seed.load import seed_model
from agentddl.checks.trace.execute import run_statement
from agentddl.checks.trace.source import PlannedStatement, load_migrations
from agentddl.generator.model import SchemaModel


@contextlib.contextmanager
def scratch_with_schema(
    server: PostgresServer,
    model: SchemaModel | None,
    schema_files: list[Path],
    rows: int = 0,
    progress: Progress | None = None,
    clone: CloneSource | None = None,
) -> Iterator[str]:
    """A new database holding the schema (and rows), dropped on every exit path."""
    if clone is not None:
        clone.check(server.version)  # before a database is made
    try:
        dsn = server.create_database()
    except psycopg.Error as error:
        raise database_error(error, "cannot create the scratch database (trace needs CREATEDB)") from None
    try:
        if clone is not None:
            clone_into(clone, dsn, server.version, progress or _silent)
        _install(dsn, model, schema_files, server.version)
        if rows and model is not None:
            seed_model(dsn, model, events=rows, progress=_seeding(progress))
        yield dsn
    finally:
        server.drop_database(dsn)


def _silent(_line: str) -> None:
    """No progress to show."""


def _seeding(progress: Progress | None) -> SeedProgress | None:
    """The seeder reports (stage, rows so far); the caller gets one line of text."""
    if progress is None:
        return None
    report = progress
    return lambda stage, count: report(f"seeding {stage}: {count:,} rows")


def _install(dsn: str, model: SchemaModel | None, schema_files: list[Path], version: int) -> None:
    if model is not None:
        install_profile(dsn, model, version)
    with connect(dsn) as conn:
        for migration in load_migrations(schema_files, version):
            for statement in migration.statements:
                _run_setup(conn, statement)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.execute("COMMIT")


def _run_setup(conn: psycopg.Connection[Any], statement: PlannedStatement) -> None:
    try:
        run_statement(conn, statement)
    except psycopg.Error as error:
        position = error.diag.statement_position  # 1-based, in the statement's SQL
        where = statement.where(int(position) if position else None)
        raise DatabaseError(
            f"{where}: the schema SQL failed on the scratch database: {error_line(error)}"
        ) from None
