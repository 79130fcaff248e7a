"""Alembic environment: the database comes from AGENTDDL_DSN (or sqlalchemy.url)."""

from __future__ import annotations

import os

from alembic import context
from alembic.util import CommandError
from sqlalchemy import engine_from_config, pool


def database_url() -> str:
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
    return url


def run_migrations_offline() -> None:
    context.configure(url=database_url(), literal_binds=True, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    section = {"sqlalchemy.url": database_url()}
    engine = engine_from_config(section, prefix="sqlalchemy.", poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
