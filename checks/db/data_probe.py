"""The database side of lint's data checks (`lint.probe.DataProbe`): one read-only
`SELECT EXISTS (...)` per data-dependent statement, on the database `--schema-from`
names, in a READ ONLY transaction under a statement_timeout and a lock_timeout (the
caller's, lint's `data_check_timeout`; set LOCAL, for that check only), rolled back
after each check. A timeout or a refused query is an answer too ("did not
finish"), never an exception: the statement's warning stays."""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import psycopg
from psycopg import errors

from agentddl.checks.db.connect import connect, describe_dsn, error_line


@dataclass(frozen=True)
class Answer:
    found: bool | None  # None: not answered
    seconds: float
    error: str | None = None


class ReadOnlyProbe:
    """Answers lint's data checks on `dsn`, each query once (a check repeated in a run,
    e.g. in every file linted, is answered from the first run of it); the connection
    opens at the first check."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.source = describe_dsn(dsn)
        self._conn: psycopg.Connection[Any] | None = None
        self._answers: dict[tuple[str, int, int], Answer] = {}

    def exists(self, sql: str, statement_ms: int, lock_ms: int) -> Answer:
        """Whether `sql` (a SELECT EXISTS) is true, under these timeouts."""
        key = (sql, statement_ms, lock_ms)
        if key not in self._answers:
            self._answers[key] = self._ask(*key)
        return self._answers[key]

    def _ask(self, sql: str, statement_ms: int, lock_ms: int) -> Answer:
        conn = self._connection()
        started = time.perf_counter()
        try:
            conn.execute(
                "SELECT set_config('statement_timeout', %s, true), set_config('lock_timeout', %s, true)",
                (f"{statement_ms}ms", f"{lock_ms}ms"),
            )
            row = conn.execute(sql).fetchone()
            return Answer(bool(row and row[0]), time.perf_counter() - started)
        except (errors.QueryCanceled, errors.LockNotAvailable) as error:
            took = time.perf_counter() - started
            return Answer(None, took, f"timed out after {took * 1000:.0f} ms ({error_line(error)})")
        except psycopg.Error as error:
            return Answer(None, time.perf_counter() - started, error_line(error))
        finally:
            if not conn.broken:  # a lost connection has nothing to roll back
                conn.rollback()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None:
            self._conn = connect(self._dsn, autocommit=False, read_only=True)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> ReadOnlyProbe:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()
