"""Run a migration's statements on the scratch database and record what each one did.

Every file runs in a session of its own, as psql or Alembic would run it. A statement
the migration runs in autocommit is wrapped in BEGIN ... COMMIT by the tracer: for one
statement that is the same transaction PostgreSQL would give it, and it lets the
session read its own locks and counters before the commit releases them. Statements
PostgreSQL refuses inside a transaction block (CONCURRENTLY, ...) run bare, and their
locks come from the watcher's samples. The first failing statement stops the migration
(psql's ON_ERROR_STOP, Alembic's behaviour): its transaction rolls back.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

import agentddl.checks.trace.snapshot as snapshot
from agentddl.checks.db import connect, error_line
from agentddl.checks.pg.lockmodes import RUNTIME_NEEDS, blocked_kinds, strongest
from agentddl.checks.trace.source import MigrationFile, PlannedStatement
from agentddl.checks.trace.types import HeldLock, StatementTrace
from agentddl.checks.trace.watch import LockWatcher

Conn = psycopg.Connection[Any]


@dataclass
class Timed:
    """A statement's trace with its client-side times (time.monotonic seconds)."""

    trace: StatementTrace
    start: float
    end: float
    released: float = 0.0  # when its transaction ended and its locks went away
    overhead_at_start: float = 0.0  # the tracer's own inspection time in its transaction so far


@dataclass
class Transaction:
    """The open transaction: its statements so far, the locks it holds, inspection time."""

    opened_by_tracer: bool
    pending: list[Timed] = field(default_factory=list)
    locks: set[tuple[int, str]] = field(default_factory=set)
    overhead: float = 0.0
    # What the session saw after its last statement: the next one's "before" (nothing
    # runs in between), so each statement costs one snapshot, not two.
    last_seen: snapshot.Snapshot | None = None


class Tracer:
    """Runs migration files one after the other; stops at the first failing statement."""

    def __init__(
        self, dsn: str, version: int, watcher: LockWatcher, existing: dict[int, tuple[str, int]]
    ) -> None:
        self.dsn = dsn
        self.version = version
        self.watcher = watcher
        self.sizes = {name: size for name, size in existing.values()}  # bytes before the migration
        # A relation is named as it was before the migration, even once renamed; one the
        # migration creates under a name an existing one had (ALTER COLUMN TYPE's rebuilt
        # indexes, REINDEX CONCURRENTLY's copy, a table swapped in by rename) is "name (new)".
        self._original = set(existing)
        self._names: dict[int, str] = {oid: name for oid, (name, _size) in existing.items()}
        self.timed: list[Timed] = []
        self.failed = False
        self._toast: set[int] = set()  # a lock on a TOAST table comes with its table's: not listed
        # A bare statement's scans come from the shared counters. They count others' scans
        # too with --load, and on 14 (an asynchronous collector) earlier statements' and the
        # schema setup's, arriving late: then only the tables it was seen locking count (a
        # statement cannot read a table it holds no lock on).
        self.shared_with_workload = False

    def run(self, files: list[MigrationFile]) -> list[Timed]:
        for migration in files:
            if self.failed:
                break
            self._run_file(migration)
        return self.timed

    def _run_file(self, migration: MigrationFile) -> None:
        with connect(self.dsn) as conn:
            self.watcher.pid = conn.info.backend_pid
            tx: Transaction | None = None
            for statement in migration.statements:
                tx = self._step(conn, statement, tx)
                if self.failed:
                    return
            if tx is not None:  # our implicit transaction commits; an unfinished BEGIN rolls back
                self._end(conn, tx, "COMMIT" if tx.opened_by_tracer else "ROLLBACK")

    def _step(self, conn: Conn, statement: PlannedStatement, tx: Transaction | None) -> Transaction | None:
        if statement.control == "begin":
            conn.execute(statement.sql.encode())  # inside a transaction: a warning, no-op
            return tx if tx is not None else Transaction(opened_by_tracer=False)
        if statement.control is not None:
            if tx is not None:
                self._end(conn, tx, statement.sql)
            else:  # COMMIT outside a transaction: PostgreSQL warns and goes on
                conn.execute(statement.sql.encode())
            return None
        if statement.in_block and tx is None:  # the runner's implicit transaction
            conn.execute("BEGIN")
            tx = Transaction(opened_by_tracer=True)
        if tx is not None:
            self._in_transaction(conn, statement, tx)
        elif statement.needs_autocommit:
            self._bare(conn, statement)
        else:
            self._own_transaction(conn, statement)
        return tx if not self.failed else None

    def _own_transaction(self, conn: Conn, statement: PlannedStatement) -> None:
        """A statement run in autocommit, in a transaction of its own (what PostgreSQL
        gives it), so the session can read its locks and counters before the COMMIT."""
        own = Transaction(opened_by_tracer=True)
        conn.execute("BEGIN")
        self._in_transaction(conn, statement, own)
        if not self.failed:
            self._end(conn, own, "COMMIT")

    def _run(self, conn: Conn, statement: PlannedStatement) -> str | None:
        """Run one migration statement: its error as 'SQLSTATE: message', or None."""
        return _execute(conn, statement)

    # -- a statement inside a transaction ----------------------------------------------

    def _in_transaction(self, conn: Conn, statement: PlannedStatement, tx: Transaction) -> None:
        mark = time.monotonic()
        before = tx.last_seen or snapshot.take(conn)
        trace = self._new_trace(statement, before, in_transaction=statement.in_block)
        start = time.monotonic()
        tx.overhead += start - mark
        timed = Timed(trace, start, start, overhead_at_start=tx.overhead)
        error = self._run(conn, statement)
        timed.end = time.monotonic()
        tx.pending.append(timed)
        self.timed.append(timed)
        if error is not None:
            self._failed(conn, tx, timed, error)
            return
        after = tx.last_seen = snapshot.take(conn)
        held = set(snapshot.own_locks(conn))
        self._remember(before, after)
        self._fill(conn, timed, before, after, snapshot.scanned(before.scans, after.scans))
        trace.written = {
            self._names[oid]: rows
            for oid, rows in snapshot.written(before.scans, after.scans).items()
            if oid in self._names
        }
        # Relations an earlier statement of the migration created are invisible to every
        # other session until the commit: their locks block nobody, and listing them after
        # every statement made a long initial migration's report grow with the square.
        trace.locks = self._named(
            {(oid, mode) for oid, mode in held if oid in self._original or oid not in before.relations}
        )
        trace.strongest_lock = self._strongest(held - tx.locks)
        tx.locks |= held
        tx.overhead += time.monotonic() - timed.end

    def _failed(self, conn: Conn, tx: Transaction, timed: Timed, error: str) -> None:
        timed.trace.error = error
        self._fill_waits(timed)
        self.failed = True
        self._end(conn, tx, "ROLLBACK")

    def _end(self, conn: Conn, tx: Transaction, command: str) -> None:
        """COMMIT or ROLLBACK: the moment every pending statement's locks are released."""
        if conn.info.transaction_status == TransactionStatus.INERROR:
            command = "ROLLBACK"
        error = _execute(conn, command)
        released = time.monotonic()
        for timed in tx.pending:
            timed.released = released
            held = released - timed.start - (tx.overhead - timed.overhead_at_start)
            timed.trace.lock_held_ms = max(0.0, held * 1000) if _took_locks(timed.trace) else 0.0
        if error is not None and tx.pending and not self.failed:
            tx.pending[-1].trace.error = error  # e.g. a deferred constraint failing at COMMIT
            self.failed = True

    # -- a statement that cannot run in a transaction block -----------------------------

    def _bare(self, conn: Conn, statement: PlannedStatement) -> None:
        snapshot.prepare_shared_scans(conn, self.version)
        before = snapshot.take(conn, shared_scans=True)
        trace = self._new_trace(statement, before, in_transaction=False)
        self.watcher.granted_too = True  # its locks are only seen while it runs
        start = time.monotonic()
        with self.watcher.seen_while_running(self.dsn, "CONCURRENTLY" in statement.sql.upper()):
            error = self._run(conn, statement)
        timed = Timed(trace, start, time.monotonic())
        self.watcher.granted_too = False
        timed.released = timed.end
        self.timed.append(timed)
        after = snapshot.take(conn)
        seen = {
            (oid, mode)
            for oid, mode, granted in self.watcher.locks_between(timed.start, timed.end)
            if granted and not _dropped_index(oid, before, after)
        }
        self._remember(before, after)
        if error is None:
            self._fill(conn, timed, before, after, self._bare_scans(conn, before, seen))
        else:  # a failed CONCURRENTLY leaves its index behind, invalid (docs: CREATE INDEX)
            trace.error = error
            trace.left_invalid = sorted(
                self._names[oid]
                for oid in snapshot.invalid_indexes(conn)
                if oid not in before.relations and oid in self._names  # pg_toast ones: not named
            )
            self._fill_waits(timed)
            self.failed = True
        trace.locks = self._named(seen)
        trace.strongest_lock = self._strongest(seen)
        trace.lock_held_ms = trace.duration_ms if trace.strongest_lock else 0.0

    def _bare_scans(self, conn: Conn, before: snapshot.Snapshot, seen: set[tuple[int, str]]) -> list[int]:
        """Tables a bare statement read in full, from the shared counters."""
        scanned = snapshot.scanned(
            before.scans, snapshot.shared_scans_after(conn, self.version, before.scans)
        )
        if self.shared_with_workload or self.version < 15:
            scanned = [oid for oid in scanned if oid in {locked for locked, _mode in seen}]
        return scanned

    # -- filling in a trace -------------------------------------------------------------

    def _new_trace(
        self, statement: PlannedStatement, before: snapshot.Snapshot, in_transaction: bool
    ) -> StatementTrace:
        return StatementTrace(
            file=statement.file,
            line=statement.line,
            sql=statement.sql,
            in_transaction=in_transaction,
            column=statement.column or None,
            lock_timeout_ms=before.settings.get("lock_timeout", 0),
            statement_timeout_ms=before.settings.get("statement_timeout", 0),
        )

    def _remember(self, before: snapshot.Snapshot, after: snapshot.Snapshot) -> None:
        for snap in (before, after):
            for oid, rel in snap.relations.items():
                if oid not in self._original and oid not in self._names:
                    self._names[oid] = f"{rel.name} (new)" if rel.name in self.sizes else rel.name
                if rel.kind == "t":
                    self._toast.add(oid)

    def _fill(
        self, conn: Conn, timed: Timed, before: snapshot.Snapshot, after: snapshot.Snapshot, scans: list[int]
    ) -> None:
        """What a statement that succeeded did: rewrites, scans, new relations, waits."""
        trace = timed.trace
        rewritten = snapshot.rewritten(before, after)
        trace.rewritten = self._named_relations(rewritten)
        trace.rewritten_tables = self._named_relations(snapshot.tables(before, rewritten))
        had_rows = [oid for oid in rewritten if self.sizes.get(self._names.get(oid, ""), 0) > 0]
        trace.emptied = self._named_relations(snapshot.emptied(conn, before, after, had_rows))
        trace.scanned = self._named_relations(scans)
        trace.created = sorted(
            rel.name for oid, rel in after.relations.items() if oid not in before.relations
        )
        trace.sizes = {name: self.sizes.get(name, 0) for name in trace.rewritten + trace.scanned}
        self._fill_waits(timed)

    def _fill_waits(self, timed: Timed) -> None:
        trace = timed.trace
        trace.duration_ms = (timed.end - timed.start) * 1000
        waited = {
            (oid, mode)
            for oid, mode, granted in self.watcher.locks_between(timed.start, timed.end)
            if not granted
        }
        trace.waited_for = self._named(waited)

    def _named_relations(self, oids: list[int]) -> list[str]:
        return sorted(self._names[oid] for oid in oids if oid in self._names)

    def _strongest(self, locks: set[tuple[int, str]]) -> str | None:
        """The strongest of these locks on relations that existed before the migration."""
        return strongest(
            [mode for oid, mode in locks if self._names.get(oid) in self.sizes and oid not in self._toast]
        )

    def _named(self, locks: set[tuple[int, str]]) -> list[HeldLock]:
        """One lock per relation of the user's schemas: the strongest mode held on it (the
        weaker ones add nothing a runtime query would notice), blocking what any of them block."""
        modes: dict[str, list[str]] = {}
        for oid, mode in locks:
            if oid in self._names and oid not in self._toast:
                modes.setdefault(self._names[oid], []).append(mode)
        return [
            HeldLock(name, strongest(held) or held[0], _blocks(frozenset(held)))
            for name, held in sorted(modes.items())
        ]


def run_statement(conn: Conn, statement: PlannedStatement) -> None:
    """Run one migration statement as psql would: a COPY from or to the client through
    the COPY protocol (psql sends the data lines that follow it in the script)."""
    if statement.copy_data is None and not statement.copies_to_client:
        conn.execute(statement.sql.encode())
        return
    with conn.cursor() as cursor, cursor.copy(statement.sql.encode()) as copy:
        if statement.copy_data is not None:
            copy.write(statement.copy_data.encode())
        else:
            for _block in copy:  # psql would print it; nothing here needs it
                pass


def _execute(conn: Conn, what: PlannedStatement | str) -> str | None:
    """Run one statement (or COMMIT / ROLLBACK); its error as 'SQLSTATE: message', or None."""
    try:
        if isinstance(what, str):
            conn.execute(what.encode())
        else:
            run_statement(conn, what)
    except psycopg.Error as error:
        return failure(error)
    return None


def failure(error: psycopg.Error) -> str:
    """A statement's error as a trace shows it: 'SQLSTATE: message'."""
    return f"{error.sqlstate or 'ERROR'}: {error_line(error)}"


def _dropped_index(oid: int, before: snapshot.Snapshot, after: snapshot.Snapshot) -> bool:
    """An index a concurrent statement dropped (DROP INDEX CONCURRENTLY, REINDEX
    CONCURRENTLY's old copy): its final ACCESS EXCLUSIVE lock is taken once the index is
    dead, invisible to every query, so nobody waits for it; it is not reported."""
    old = before.relations.get(oid)
    return old is not None and old.kind in ("i", "I") and oid not in after.relations


@functools.cache
def _blocks(modes: frozenset[str]) -> tuple[str, ...]:
    kinds = {kind for mode in modes for kind in blocked_kinds(mode)}
    return tuple(kind for kind in RUNTIME_NEEDS if kind in kinds)


def _took_locks(trace: StatementTrace) -> bool:
    return trace.strongest_lock is not None
