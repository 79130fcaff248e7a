"""The scratch database a trace runs in: a fresh database on the server that first
receives "the current schema" (a profile's generated schema, the user's own schema SQL
files, or both), and optionally seeded rows. The target database is never touched."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed.load import seed_model
from agentddl.checks.trace.execute import error_line, run_statement
from agentddl.checks.trace.source import PlannedStatement, load_migrations
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

Progress = Callable[[str, int], None]


@contextlib.contextmanager
def scratch_with_schema(
    server: PostgresServer,
    model: SchemaModel | None,
    schema_files: list[Path],
    rows: int = 0,
    progress: Progress | None = None,
) -> Iterator[str]:
    """A new database holding the schema (and rows), dropped on every exit path."""
    try:
        dsn = server.create_database()
    except psycopg.Error as error:
        raise AgentDDLError(
            f"cannot create the scratch database (trace needs CREATEDB): {error_line(error)}"
        ) from None
    try:
        _install(dsn, model, schema_files, server.version)
        if rows and model is not None:
            seed_model(dsn, model, events=rows, progress=progress)
        yield dsn
    finally:
        server.drop_database(dsn)


def _install(dsn: str, model: SchemaModel | None, schema_files: list[Path], version: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if model is not None:
            try:
                install_schema(conn, model)
            except psycopg.Error as error:
                raise AgentDDLError(
                    f"the {model.profile.name!r} profile's schema (engine.version "
                    f"{model.profile.engine.version}) does not install on PostgreSQL {version}: "
                    f"{error_line(error)}"
                ) from None
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
        raise AgentDDLError(
            f"{where}: the schema SQL failed on the scratch database: {error_line(error)}"
        ) from None
