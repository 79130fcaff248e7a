"""Where prove runs: a scratch database it installs the schema into, a DSN's empty
database (installed, and the schema dropped again afterwards), or `existing`: the schema
already in a database, proven in place.

In place, prove writes only rows it can find again (runs of kind 'agentddl.prove',
tenants named 'agentddl-prove ...') and deletes them when it is done. Its workers claim
runs and relay messages across tenants, so it refuses a database where anything is live:
queued, running or waiting runs, active attempts, undelivered messages (a copy of
production with its workers stopped is the place for it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg
from psycopg import sql

from agentddl.checks.db import PostgresServer, open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.server import connect, describe_dsn
from agentddl.checks.prove.observe import Observer
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

LIVE_ROWS = (
    ("runs", "status IN ('queued', 'running', 'waiting')", "live runs"),
    ("attempts", "status = 'active'", "active attempts"),
    ("outbox", "delivered_at IS NULL", "undelivered outbox messages"),
)


@contextlib.contextmanager
def prove_database(model: SchemaModel, dsn: str | None, existing: bool) -> Iterator[tuple[str, int]]:
    """(dsn of the database to prove, server major) for the block."""
    if existing:
        if dsn is None:
            raise AgentDDLError("--existing proves the schema in a database you name: pass --dsn")
        yield _existing(model, dsn), PostgresServer(dsn).version
        return
    if dsn is not None:
        with _installed_into(model, dsn):
            yield dsn, PostgresServer(dsn).version
        return
    version = model.profile.engine.version
    with open_server(None, prefer=version) as server, server.scratch_database() as scratch:
        with connect(scratch) as conn:
            install_schema(conn, model)
        yield scratch, server.version


def _schema_exists(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> bool:
    row = conn.execute("SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = %s)", [schema]).fetchone()
    return bool(row and row[0])


@contextlib.contextmanager
def _installed_into(model: SchemaModel, dsn: str) -> Iterator[None]:
    with connect(dsn) as conn:
        if _schema_exists(conn, model.schema):
            raise AgentDDLError(
                f"{describe_dsn(dsn)} already has a schema {model.schema!r}: prove it in place with "
                "--existing, or point --dsn at an empty database"
            )
        install_schema(conn, model)
    try:
        yield
    finally:  # the database is left as empty as it was (the cluster-wide roles stay)
        with connect(dsn) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(model.schema)))


def _existing(model: SchemaModel, dsn: str) -> str:
    with connect(dsn) as conn:
        if not _schema_exists(conn, model.schema):
            raise AgentDDLError(f"{describe_dsn(dsn)} has no schema {model.schema!r} to prove")
    observer = Observer(dsn, model)
    try:
        observer.cleanup()  # what an interrupted earlier prove left
        observer.refuse_live(LIVE_ROWS)
    except AgentDDLError as error:
        raise AgentDDLError(f"{describe_dsn(dsn)}: {error}") from error
    finally:
        observer.close()
    return dsn
