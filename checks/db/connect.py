"""The one place agentddl opens a database connection, and the one wording of database
errors.

Every connection in agentddl (the checks, the scratch servers, the worker processes of
prove) comes from `connect`; a test and ruff's banned-api rule keep `psycopg.connect`
out of every other module. A failure a user can cause (a DSN that is not one, a server
that does not answer, a statement the server refuses) becomes one `DatabaseError` line
(`error_line`), which the CLI prints with exit code 2; never a traceback.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from agentddl.generator.errors import AgentDDLError

CONNECT_TIMEOUT_SECONDS = 10
APPLICATION_NAME = "agentddl"


class DatabaseError(AgentDDLError):
    """A connection or SQL failure, in one line: `<what was being done>: <server's message>`."""


def error_line(error: BaseException) -> str:
    """PostgreSQL's primary message (else the first line of what psycopg says), one line."""
    diag = getattr(error, "diag", None)
    text = (getattr(diag, "message_primary", None) or str(error)).strip() or type(error).__name__
    return text.splitlines()[0]


def database_error(error: BaseException, doing: str) -> DatabaseError:
    """`doing` failed, said in one line: e.g. database_error(e, "reading the catalog of h:5432/db")."""
    return DatabaseError(f"{doing}: {error_line(error)}")


def describe_dsn(dsn: str) -> str:
    """host:port/dbname of a DSN, never its password: for messages and reports."""
    try:
        params = conninfo_to_dict(dsn)
    except (psycopg.ProgrammingError, UnicodeEncodeError):
        return "<unparsable DSN>"
    host = params.get("host") or "localhost"
    return f"{host}:{params.get('port') or 5432}/{params.get('dbname') or ''}"


def dsn_params(dsn: str) -> dict[str, Any]:
    """A DSN's parameters; one that is not a DSN is a one-line DatabaseError."""
    try:
        return conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as error:  # not a DSN at all: nothing to connect to
        raise DatabaseError(f"invalid DSN: {error_line(error)}") from None
    except UnicodeEncodeError as error:  # undecodable bytes of argv arrive as surrogates
        raise DatabaseError(f"invalid DSN: not UTF-8 text (character {error.start + 1})") from None


def connect(
    dsn: str,
    *,
    autocommit: bool = True,
    read_only: bool = False,
    row_factory: Any = None,
    timeout: float = CONNECT_TIMEOUT_SECONDS,
    settings: dict[str, str] | None = None,
) -> psycopg.Connection[Any]:
    """A connection to `dsn` (autocommit unless asked otherwise).

    read_only: every transaction of the session is read-only (checks that only read a
    user's database). settings: session settings sent at connect time (e.g.
    statement_timeout, lock_timeout), so they hold from the first statement on.
    A DSN that is not one, or a server that does not answer, is a one-line DatabaseError.
    """
    params = dsn_params(dsn)
    options = dict(settings or {})
    if read_only:
        options["default_transaction_read_only"] = "on"
    kwargs: dict[str, Any] = {"autocommit": autocommit, "connect_timeout": max(1, int(timeout))}
    if options:  # after the DSN's own options, so ours win
        ours = " ".join(f"-c {name}={_option_value(value)}" for name, value in options.items())
        kwargs["options"] = f"{params.get('options') or ''} {ours}".strip()
    if row_factory is not None:
        kwargs["row_factory"] = row_factory
    if "application_name" not in params:
        kwargs["application_name"] = APPLICATION_NAME
    try:
        return psycopg.connect(dsn, **kwargs)
    except psycopg.ProgrammingError as error:
        raise DatabaseError(f"invalid DSN: {error_line(error)}") from None
    except psycopg.OperationalError as error:
        where = describe_dsn(dsn)
        raise DatabaseError(f"cannot connect to PostgreSQL at {where}: {error_line(error)}") from None


def _option_value(value: str) -> str:
    """A value for libpq's `options` (-c name=value): spaces and backslashes escaped."""
    return value.replace("\\", "\\\\").replace(" ", "\\ ")
