"""Revisions upgraded on a real database with Alembic's own `command.upgrade`, every
statement they issue handed to a hook where it really runs: run-time loops, `op.get_bind()`
queries and `autocommit_block()`s included.

The revisions are staged (`staging`) with this module's env.py, never the project's own
(it may import the application or read its settings): Alembic runs online on a
SQLAlchemy engine whose DBAPI connections the hook opens (`Hook.connect`; no driver is
imported here), one transaction per revision, and the hook hears SQLAlchemy's documented
events of that engine:

- `do_execute`, `do_execute_no_params`, `do_executemany` (DialectEvents): a statement
  issued while a revision is on the stack goes to `Hook.statement` with its source (the
  innermost line of the revision: in a loop, the loop's `op.*` call) and a callable that
  runs it as SQLAlchemy would; the hook runs it. Alembic's own statements (its version
  table, the dialect's first queries) run untouched; the hook is told (`Hook.aside`).
- `commit`, `rollback` (ConnectionEvents, sent before the driver's call): `Hook.end`
  ends the transaction itself, so it knows when its locks went away (the driver's call
  then finds no transaction to end).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from agentddl.checks.alembic.markers import calling_source
from agentddl.checks.alembic.staging import NOT_A_REVISION, StagedRevision, stage, staged_config

ENV_PY = """\
from alembic import context

from agentddl.checks.alembic.traced import run_traced

run_traced(context)
"""
HOOK_KEY = "agentddl_hook"  # Config.attributes: the Hook
# Alembic's version table, under a name of our own: a copy of the user's database holds
# their alembic_version (at their head), which would make Alembic skip or refuse the
# revisions; dropped once the revisions ran.
VERSION_TABLE = "agentddl_trace_version"
SOURCES_KEY = "agentddl_sources"  # Config.attributes: staged copy -> the revision as named


@dataclass(frozen=True)
class Source:
    """Where a statement came from: the revision file as the user named it, and the line."""

    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class Hook(Protocol):
    """What runs and observes the statements (agentddl.checks.trace's online tracer)."""

    def connect(self) -> Any:
        """A new DBAPI connection (PostgreSQL, not in autocommit) to the database."""

    def statement(
        self, connection: Any, source: Source, sql: str, parameters: Any, run: Callable[[], None]
    ) -> None:
        """Run a revision's statement on `connection` by calling `run` (once)."""

    def aside(self, connection: Any) -> None:
        """Alembic ran a statement of its own on `connection`."""

    def end(self, connection: Any, command: Literal["COMMIT", "ROLLBACK"]) -> None:
        """The transaction of `connection` ends now."""


class RevisionFailed(Exception):
    """A revision could not be loaded or stopped with an error (its own or a statement's)."""

    def __init__(self, source: Source, message: str) -> None:
        super().__init__(message)
        self.source = source


def check_loadable(revisions: list[Path]) -> None:
    """Import every revision as Alembic does (before any database work); RevisionFailed
    names the first that cannot be, at the line Python stopped."""
    from alembic.script import ScriptDirectory

    with _environment(revisions) as (config, staged, sources):
        for path in revisions:
            if path not in staged:
                raise RevisionFailed(Source(path, 1), NOT_A_REVISION)
        try:
            ScriptDirectory.from_config(config).revision_map.get_revisions("heads")
        except Exception as error:  # revision scripts are user code
            raise _failed(error, sources, revisions[0]) from None


@contextlib.contextmanager
def traced_upgrades(revisions: list[Path], hook: Hook) -> Iterator[Callable[[Path], None]]:
    """A function that upgrades the database to one of `revisions` (its missing parents
    are empty stubs, the ones already applied are skipped), every statement through
    `hook`; each call is a `command.upgrade` with a connection of its own."""
    from alembic import command

    with _environment(revisions) as (config, staged, sources):
        config.attributes[HOOK_KEY] = hook

        def upgrade(path: Path) -> None:
            revision = staged[path].revision  # check_loadable refused the files not staged
            try:
                command.upgrade(config, revision)
            except Exception as error:
                raise _failed(error, sources, path) from error

        yield upgrade
        if revisions:
            _drop_version_table(hook)


def _drop_version_table(hook: Hook) -> None:
    connection = hook.connect()
    try:
        connection.cursor().execute(f"DROP TABLE IF EXISTS {VERSION_TABLE}")
        connection.commit()
    finally:
        connection.close()


@contextlib.contextmanager
def _environment(
    revisions: list[Path],
) -> Iterator[tuple[Any, dict[Path, StagedRevision], dict[str, Path]]]:
    """The staged script directory's configuration, its staged revisions by the path as
    named, and the revisions as named by their staged copy's file name."""
    with tempfile.TemporaryDirectory(prefix="agentddl-alembic-") as temp:
        staged = stage(revisions, Path(temp), env=ENV_PY)
        config = staged_config(Path(temp))
        sources = {str(s.copy): original for original, s in staged.items()}
        config.attributes[SOURCES_KEY] = sources
        yield config, staged, sources


def _failed(error: BaseException, sources: dict[str, Path], default: Path) -> RevisionFailed:
    """The error at the last revision line its traceback passed through."""
    source, trace = Source(default, 1), error.__traceback__
    while trace is not None:
        path = sources.get(trace.tb_frame.f_code.co_filename)
        if path is not None:
            source = Source(path, trace.tb_lineno)
        trace = trace.tb_next
    return RevisionFailed(source, f"{type(error).__name__}: {error}")


def run_traced(context: Any) -> None:
    """The staged env.py: Alembic online on the hook's connections, statements hooked."""
    from sqlalchemy import create_engine, pool

    config = context.config
    hook: Hook = config.attributes[HOOK_KEY]
    engine = create_engine("postgresql+psycopg://", creator=hook.connect, poolclass=pool.NullPool)
    _listen(engine, hook, config.attributes[SOURCES_KEY])
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection, transaction_per_migration=True, version_table=VERSION_TABLE
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


def _listen(engine: Any, hook: Hook, sources: dict[str, Path]) -> None:
    from sqlalchemy import event

    def hooked(cursor: Any, sql: str, parameters: Any, run: Callable[[], None]) -> bool:
        found = calling_source(sources)
        if found is None:
            hook.aside(cursor.connection)
            return False  # SQLAlchemy runs it
        hook.statement(cursor.connection, Source(sources[found[0]], found[1]), sql, parameters, run)
        return True  # ran

    def one(cursor: Any, sql: str, parameters: Any, context: Any) -> bool:
        return hooked(
            cursor, sql, parameters, lambda: context.dialect.do_execute(cursor, sql, parameters, context)
        )

    def many(cursor: Any, sql: str, parameters: Any, context: Any) -> bool:
        return hooked(
            cursor, sql, parameters, lambda: context.dialect.do_executemany(cursor, sql, parameters, context)
        )

    def bare(cursor: Any, sql: str, context: Any) -> bool:
        return hooked(cursor, sql, None, lambda: context.dialect.do_execute_no_params(cursor, sql, context))

    event.listen(engine, "do_execute", one)
    event.listen(engine, "do_executemany", many)
    event.listen(engine, "do_execute_no_params", bare)
    event.listen(engine, "commit", lambda conn: hook.end(conn.connection.dbapi_connection, "COMMIT"))
    event.listen(engine, "rollback", lambda conn: hook.end(conn.connection.dbapi_connection, "ROLLBACK"))
