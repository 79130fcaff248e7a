"""The database side of lint's data checks (`lint.probe.DataProbe`): one read-only
`SELECT EXISTS (...)` per data-dependent statement, on the database `--schema-from`
names, in a READ ONLY transaction under a statement_timeout and a lock_timeout, rolled
back after each check. A timeout or a refused query is an answer too ("did not
finish"), never an exception: the statement's warning stays."""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import psycopg
from psycopg import errors

from agentddl.checks.db.connect import connect, describe_dsn, error_line

DEFAULT_TIMEOUT_MS = 5000
LOCK_TIMEOUT_MS = 1000


@dataclass(frozen=True)
class Answer:
    found: bool | None  # None: not answered
    seconds: float
    error: str | None = None


class ReadOnlyProbe:
    """Answers lint's data checks on `dsn`, each query once (a check repeated in a run,
    e.g. in every file linted, is answered from the first run of it); the connection
    opens at the first check."""

    def __init__(self, dsn: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self._dsn, self.timeout_ms = dsn, timeout_ms
        self.source = describe_dsn(dsn)
        self._conn: psycopg.Connection[Any] | None = None
        self._answers: dict[str, Answer] = {}

    def exists(self, sql: str) -> Answer:
        if sql not in self._answers:
            self._answers[sql] = self._ask(sql)
        return self._answers[sql]

    def _ask(self, sql: str) -> Answer:
        conn = self._connection()
        started = time.perf_counter()
        try:
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
            settings = {"statement_timeout": f"{self.timeout_ms}ms", "lock_timeout": f"{LOCK_TIMEOUT_MS}ms"}
            self._conn = connect(self._dsn, autocommit=False, read_only=True, settings=settings)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> ReadOnlyProbe:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()
