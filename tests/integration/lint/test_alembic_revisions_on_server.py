"""Lint's verdicts on Alembic revisions hold when Alembic runs them on a real server.

Each revision of the labelled corpus below is linted (runner alembic, the server's major),
then applied with `alembic upgrade` (agentddl.checks.alembic.online: agentddl's env.py, a
transaction per revision) while a writer holds ROW EXCLUSIVE on one table in an open
transaction. Once the migration's session is seen waiting, other sessions probe a read
and a write (lock_timeout: a blocked probe fails, a free one never waits); then the
writer ends. What each finding claims is checked against what the server did: an index
build blocks writes and not reads, a type change rewrites the table (its relfilenode
changes) and blocks reads, a validating constraint blocks writes to both tables, a lock
chain makes readers of the first table wait, a CONCURRENTLY build outside an
autocommit_block is refused; a revision lint passes blocks neither readers nor writers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from alembic.util import CommandError
from psycopg import errors

from agentddl.checks.alembic.online import upgrade
from agentddl.checks.db import PostgresServer
from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig

Connection = psycopg.Connection[tuple[object, ...]]
CORPUS = Path(__file__).resolve().parents[2] / "lint_corpus"
SETUP = """
CREATE TABLE invoices (id bigint PRIMARY KEY, due_date date);
CREATE TABLE payments (id bigint PRIMARY KEY);
CREATE TABLE orders (id bigint PRIMARY KEY, placed_at timestamptz);
CREATE TABLE page_counters (id bigint PRIMARY KEY, hits integer NOT NULL);
INSERT INTO invoices SELECT g, date '2024-01-01' + g % 300 FROM generate_series(1, 500) AS g;
INSERT INTO payments SELECT generate_series(1, 500);
INSERT INTO orders SELECT g, now() - g * interval '1 minute' FROM generate_series(1, 500) AS g;
INSERT INTO page_counters SELECT g, g FROM generate_series(1, 500) AS g;
"""
TABLES = ("invoices", "payments", "orders", "page_counters")
WAITING = """
SELECT l.locktype, coalesce(CAST(l.relation AS regclass)::text, ''), l.mode
FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid AND NOT l.granted
WHERE a.datname = current_database() AND a.backend_type = 'client backend'
  AND a.pid <> pg_backend_pid() AND a.pid <> %s
"""
GIVE_UP_SECONDS = 60.0  # a guard against a hang, never a measured bound


@dataclass
class Observed:
    """What the server did while the revision ran, and after."""

    waited: tuple[str, str, str] | None = None  # (locktype, relation, mode) it queued for
    blocked: dict[str, bool] = field(default_factory=dict)  # "read t" / "write t" -> probe blocked
    rewritten: set[str] = field(default_factory=set)  # tables whose relfilenode changed
    error: BaseException | None = None  # what the upgrade raised


@dataclass(frozen=True)
class Case:
    corpus: str  # the revision's file in tests/lint_corpus
    errors: frozenset[str]  # the error-severity rules lint reports on it
    held: str  # the table a writer holds ROW EXCLUSIVE on while the revision runs
    probed: tuple[str, ...]  # tables read and written by probes while the revision waits

    def __str__(self) -> str:
        return self.corpus.split("_", 1)[0]


CASES = [
    Case(
        "071_alembic_create_index_existing.py",
        frozenset({"require-concurrent-index-creation"}),
        "invoices",
        ("invoices",),
    ),
    Case(
        "072_alembic_concurrently_without_autocommit.py",
        frozenset({"concurrently-in-transaction"}),
        "orders",
        (),
    ),
    Case(
        "073_alembic_add_fk_existing.py",
        frozenset({"constraint-missing-not-valid"}),
        "invoices",
        ("invoices", "payments"),
    ),
    Case(
        "075_alembic_alter_column_type.py",
        frozenset({"column-type-change-rewrites"}),
        "page_counters",
        ("page_counters",),
    ),
    Case("078_alembic_autocommit_concurrent_index.py", frozenset(), "orders", ("orders",)),
]


def _claim_index_build_blocks_writes(seen: Observed) -> None:
    assert seen.waited == ("relation", "invoices", "ShareLock")
    assert seen.blocked == {"read invoices": False, "write invoices": True}
    assert seen.error is None and not seen.rewritten


def _claim_concurrently_refused(seen: Observed) -> None:
    assert isinstance(seen.error, CommandError)
    assert isinstance(getattr(seen.error.__context__, "orig", None), errors.ActiveSqlTransaction)
    assert seen.waited is None  # refused at once, before any lock


def _claim_validation_blocks_writes_and_chains(seen: Observed) -> None:
    # constraint-missing-not-valid: writes to both tables wait while it validates;
    # chained-locks (a warning): it holds ACCESS EXCLUSIVE on payments while it waits.
    assert seen.waited == ("relation", "invoices", "ShareRowExclusiveLock")
    assert seen.blocked == {
        "read invoices": False,
        "write invoices": True,
        "read payments": True,
        "write payments": True,
    }
    assert seen.error is None and not seen.rewritten


def _claim_type_change_rewrites(seen: Observed) -> None:
    assert seen.waited == ("relation", "page_counters", "AccessExclusiveLock")
    assert seen.blocked == {"read page_counters": True, "write page_counters": True}
    assert seen.error is None and seen.rewritten == {"page_counters"}


def _claim_passes(seen: Observed) -> None:
    # A concurrent build waits for the open writer to finish (a virtualxid lock), never
    # for a table lock: readers and writers carry on meanwhile, and it runs outside a
    # transaction (the server refuses CONCURRENTLY inside one).
    assert seen.waited is not None and seen.waited[0] == "virtualxid"
    assert seen.blocked == {"read orders": False, "write orders": False}
    assert seen.error is None and not seen.rewritten


CLAIMS: dict[str, Callable[[Observed], None]] = {
    "071": _claim_index_build_blocks_writes,
    "072": _claim_concurrently_refused,
    "073": _claim_validation_blocks_writes_and_chains,
    "075": _claim_type_change_rewrites,
    "078": _claim_passes,
}


@pytest.fixture
def dsn(pg_server_latest: PostgresServer) -> Iterator[str]:
    with pg_server_latest.scratch_database() as found:
        with psycopg.connect(found, autocommit=True) as conn:
            conn.execute(SETUP)
        yield found


def _lint_errors(path: Path, major: int) -> frozenset[str]:
    config = LintConfig(pg_version=major, runner="alembic")
    (linted,) = run(LintRequest([str(path)], config=config)).linted
    return frozenset(f.name for f in linted.findings if f.severity == "error")


def _filenodes(conn: Connection) -> dict[str, int]:
    return {t: int(str(conn.execute("SELECT pg_relation_filenode(%s)", [t]).fetchone()[0])) for t in TABLES}  # type: ignore[index]


def _blocked(dsn: str, sql: str) -> bool:
    """Whether `sql` has to wait for a lock (lock_timeout: a free statement never waits)."""
    with psycopg.connect(dsn) as probe:
        probe.execute("SET lock_timeout = '100ms'")
        try:
            probe.execute(sql)
        except errors.LockNotAvailable:
            return True
        finally:
            probe.rollback()
    return False


def _wait_for_migration(
    watch: Connection, holder_pid: int, done: Callable[[], bool]
) -> tuple[str, str, str] | None:
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while not done():
        assert time.monotonic() < deadline, "the revision neither waited nor finished"
        row = watch.execute(WAITING, [holder_pid]).fetchone()
        if row is not None:
            return (str(row[0]), str(row[1]), str(row[2]))
        time.sleep(0.002)
    return None


def _apply_under_contention(case: Case, dsn: str) -> Observed:
    seen = Observed()
    revision = (CORPUS / case.corpus).read_text(encoding="utf-8")
    with psycopg.connect(dsn, autocommit=True) as watch, psycopg.connect(dsn) as writer:
        before = _filenodes(watch)
        writer.execute(f"LOCK TABLE {case.held} IN ROW EXCLUSIVE MODE")  # a write, not committed yet
        with ThreadPoolExecutor(1) as pool:
            migration = pool.submit(upgrade, revision, dsn)
            seen.waited = _wait_for_migration(watch, writer.info.backend_pid, migration.done)
            if seen.waited is not None:
                for table in case.probed:
                    seen.blocked[f"read {table}"] = _blocked(dsn, f"SELECT count(*) FROM {table}")
                    seen.blocked[f"write {table}"] = _blocked(dsn, f"UPDATE {table} SET id = id WHERE false")
            writer.rollback()
            seen.error = migration.exception(timeout=GIVE_UP_SECONDS)
        after = _filenodes(watch)
    seen.rewritten = {t for t in TABLES if before[t] != after[t]}
    return seen


@pytest.mark.parametrize("case", CASES, ids=str)
def test_what_lint_says_about_a_revision_holds_on_the_server(
    case: Case, dsn: str, pg_server_latest: PostgresServer
) -> None:
    assert _lint_errors(CORPUS / case.corpus, pg_server_latest.version) == case.errors
    CLAIMS[str(case)](_apply_under_contention(case, dsn))
