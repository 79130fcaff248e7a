"""A running PostgreSQL server, seen through its admin DSN: scratch databases and facts."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agentddl.checks.db.connect import connect, describe_dsn
from agentddl.checks.db.process import LocalServer
from agentddl.generator.errors import AgentDDLError

# Conservative on purpose: a name that needs no thought in a shell, a URI or a log line.
_DATABASE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_PROTECTED_DATABASES = frozenset({"postgres", "template0", "template1"})


def with_dbname(dsn: str, dbname: str) -> str:
    """The same connection string pointing at another database (URI stays a URI)."""
    if dsn.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(dsn)
        return urlunsplit(parts._replace(path="/" + quote(dbname, safe="")))
    return make_conninfo(dsn, dbname=dbname)


def validate_database_name(name: str) -> str:
    if not _DATABASE_NAME.fullmatch(name):
        raise AgentDDLError(
            f"invalid database name {name!r}: expected letters, digits and _, at most 63"
        )
    return name


class PostgresServer:
    """A server we may create and drop databases on; close() stops it if we started it."""

    def __init__(
        self, admin_dsn: str, stop: Callable[[], None] | None = None, local: LocalServer | None = None
    ) -> None:
        """local: the server's process, when this process started it (it may be crashed
        and restarted: `LocalServer.crash`, `restart`)."""
        self.admin_dsn = admin_dsn
        self._stop = stop
        self.local = local
        with self._connect() as conn:
            row = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
        assert row is not None
        self.version: int = row[0] // 10000

    def __repr__(self) -> str:
        return f"PostgresServer(version={self.version}, {describe_dsn(self.admin_dsn)})"

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        return connect(self.admin_dsn)

    def create_database(self, name: str | None = None) -> str:
        """Create an empty database (from template0, which nobody can be connected to)."""
        name = validate_database_name(f"agentddl_{secrets.token_hex(6)}" if name is None else name)
        with self._connect() as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name))
            )
        return with_dbname(self.admin_dsn, name)

    def drop_database(self, name_or_dsn: str) -> None:
        """Drop a database, disconnecting whoever is still in it."""
        name = name_or_dsn
        if "=" in name_or_dsn or "://" in name_or_dsn:
            name = str(conninfo_to_dict(name_or_dsn).get("dbname") or "")
        name = validate_database_name(name)
        if name in _PROTECTED_DATABASES:
            raise AgentDDLError(f"refusing to drop the {name!r} database")
        statement = sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name))
        with self._connect() as conn:
            if self.version >= 13:
                conn.execute(statement + sql.SQL(" WITH (FORCE)"))
                return
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(statement)

    @contextlib.contextmanager
    def scratch_database(self) -> Iterator[str]:
        """A fresh empty database for the duration of a with-block, dropped on any exit."""
        dsn = self.create_database()
        try:
            yield dsn
        finally:
            self.drop_database(dsn)

    def has_extension(self, name: str) -> bool:
        """Whether CREATE EXTENSION name would find the extension's files on this server."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = %s)", (name,)
            ).fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        """Stop the server if this process started it; never touches an external one."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()
