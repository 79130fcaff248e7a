"""Alembic environment: the database comes from AGENTDDL_DSN (or sqlalchemy.url).

A database that cannot be reached, or a statement it refuses, is one line (Alembic's
command line prints a CommandError as `FAILED: ...`), never a traceback.
"""

from __future__ import annotations

import os

from alembic import context
from alembic.util import CommandError
from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict
from sqlalchemy import engine_from_config, pool
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError


def database_url() -> str | URL:
    # A caller running Alembic from Python passes the database in config.attributes;
    # from the command line it comes from AGENTDDL_DSN (or an alembic.ini's url).
    url = context.config.attributes.get("dsn") or os.environ.get("AGENTDDL_DSN")
    try:
        url = url or context.config.get_main_option("sqlalchemy.url")
    except CommandError:  # configured from pyproject.toml only: there is no alembic.ini
        url = None
    if not url:
        raise SystemExit("agentddl: set AGENTDDL_DSN=postgresql://user@host/db to run migrations")
    # libpq URIs name no driver; SQLAlchemy needs psycopg (3) spelled out.
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url if "://" in url else key_value_url(url)


def key_value_url(conninfo: str) -> URL:
    """A libpq key=value string (host=... dbname=...) as the URL SQLAlchemy needs."""
    try:
        params = conninfo_to_dict(conninfo)
    except ProgrammingError as error:
        raise CommandError(f"not a PostgreSQL DSN: {str(error).strip().splitlines()[0]}") from None
    fields = {"user": "username", "password": "password", "host": "host", "dbname": "database"}
    named = {fields[key]: str(value) for key, value in params.items() if key in fields}
    query = {key: str(value) for key, value in params.items() if key not in fields and key != "port"}
    port = int(params["port"]) if params.get("port") else None
    return URL.create("postgresql+psycopg", port=port, query=query, **named)


def one_line(error: DBAPIError, url: URL) -> CommandError:
    """The server's message (else the driver's first line), naming the database, never its password."""
    diag = getattr(error.orig, "diag", None)
    message = getattr(diag, "message_primary", None) or str(error.orig).strip() or type(error.orig).__name__
    where = f"{url.host or 'localhost'}:{url.port or 5432}/{url.database or ''}"
    return CommandError(f"migrating {where}: {message.splitlines()[0]}")


def run_migrations_offline() -> None:
    context.configure(url=database_url(), literal_binds=True, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    section = {"sqlalchemy.url": database_url()}
    engine = engine_from_config(section, prefix="sqlalchemy.", poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            context.configure(connection=connection, transaction_per_migration=True)
            with context.begin_transaction():
                context.run_migrations()
    except DBAPIError as error:
        raise one_line(error, engine.url) from None


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
