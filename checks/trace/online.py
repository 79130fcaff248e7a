"""Alembic revisions traced where they really run: Alembic upgrades the scratch database
(`agentddl.checks.alembic.traced`) and hands every statement a revision issues to this
tracer, from inside SQLAlchemy's execution: the statements of a run-time loop (an index
built on each partition the catalog lists), `op.get_bind()` queries and DO blocks are
recorded as they run, each on the line of the revision that issued it.

A statement goes through the tracer's own recording (execute.Tracer): in Alembic's
transaction (one per revision), it is read on the session before and after it; in an
`autocommit_block()` a statement PostgreSQL refuses in a transaction runs bare (the
watcher sees its locks), any other in a transaction of its own. Alembic's COMMIT and
ROLLBACK are the tracer's, so a lock is held until the transaction really ends. The
first failing statement stops the upgrade, as it stops Alembic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import psycopg

from agentddl.checks.alembic import traced as alembic_traced
from agentddl.checks.db import connect
from agentddl.checks.trace.execute import Conn, Timed, Tracer, Transaction, failure
from agentddl.checks.trace.source import MigrationFile, PlannedStatement, online_statement
from agentddl.checks.trace.watch import LockWatcher
from agentddl.generator.errors import AgentDDLError


class OnlineTracer(Tracer):
    """A Tracer that also runs Alembic revisions (MigrationFile.online) with Alembic; it is
    the statement hook of their upgrade."""

    def __init__(
        self, dsn: str, version: int, watcher: LockWatcher, existing: dict[int, tuple[str, int]]
    ) -> None:
        super().__init__(dsn, version, watcher, existing)
        self._upgrade_to: Callable[[Path], None] | None = None  # upgrades to a revision, hooked
        self._tx: Transaction | None = None  # the transaction Alembic has open
        self._running: Callable[[], None] | None = None  # runs the statement being traced
        self._error: BaseException | None = None  # the driver's error of the failed statement

    def run(self, files: list[MigrationFile]) -> list[Timed]:
        revisions = [f.path for f in files if f.online]
        if not revisions:
            return super().run(files)
        with alembic_traced.traced_upgrades(revisions, self) as upgrade:
            self._upgrade_to = upgrade
            try:
                return super().run(files)
            finally:
                self._upgrade_to = None

    def _run_file(self, migration: MigrationFile) -> None:
        if not migration.online:
            super()._run_file(migration)
            return
        assert self._upgrade_to is not None
        try:
            self._upgrade_to(migration.path)
        except alembic_traced.RevisionFailed as error:
            if not self.failed:  # the revision's own code failed, not a statement
                raise AgentDDLError(
                    f"{error.source}: the revision failed when Alembic ran it: {error} "
                    "(--offline reads it as `alembic upgrade --sql` prints it)"
                ) from None
        finally:
            self._tx = None

    # -- the hook of agentddl.checks.alembic.traced -------------------------------------

    def connect(self) -> Conn:
        return connect(self.dsn, autocommit=False)

    def statement(
        self,
        connection: Conn,
        source: alembic_traced.Source,
        sql: str,
        parameters: Any,
        run: Callable[[], None],
    ) -> None:
        self.watcher.pid = connection.info.backend_pid
        planned = online_statement(
            source, _as_run(connection, sql, parameters), not connection.autocommit, self.version
        )
        if planned.in_block and planned.control is None and self._tx is None:
            self._tx = Transaction(opened_by_tracer=False)  # Alembic's: it commits it
        self._running, self._error = run, None
        try:
            self._tx = self._step(connection, planned, self._tx)
        finally:
            self._running = None
        if self._error is not None:
            raise self._error  # Alembic stops as it would

    def aside(self, connection: Conn) -> None:
        if self._tx is not None:  # Alembic's own write in the transaction: read again
            self._tx.last_seen = None

    def end(self, connection: Conn, command: Literal["COMMIT", "ROLLBACK"]) -> None:
        tx, self._tx = self._tx, None
        if tx is not None:
            self._end(connection, tx, command)

    def _run(self, conn: Conn, statement: PlannedStatement) -> str | None:
        if self._running is None:
            return super()._run(conn, statement)
        try:
            self._running()
        except psycopg.Error as error:
            self._error = error
            return failure(error)
        return None


def _as_run(conn: Conn, sql: str, parameters: Any) -> str:
    """The statement as the server ran it: its bound values in place (for the report and
    to know what it is), else as sent."""
    if parameters is None or (
        isinstance(parameters, (list, tuple)) and parameters and not _scalar(parameters[0])
    ):
        return sql  # no values, or executemany's rows
    try:
        return psycopg.ClientCursor(conn).mogrify(sql, parameters)
    except (psycopg.Error, TypeError, ValueError, KeyError, IndexError):
        return sql


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list, tuple))
