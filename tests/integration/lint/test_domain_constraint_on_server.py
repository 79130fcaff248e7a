"""ADL201 on ALTER DOMAIN agrees with a real server: a CHECK added to an existing
domain scans every table column of that type under a SHARE lock; NOT VALID does not."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from agentddl.checks.db import PostgresServer
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

Connection = psycopg.Connection[tuple[object, ...]]
SETUP = (
    "CREATE DOMAIN email AS text;"
    "CREATE TABLE contacts (id int, address email);"
    "INSERT INTO contacts SELECT g, 'a@b' FROM generate_series(1, 50) g;"
)
CASES = [
    "ALTER DOMAIN email ADD CONSTRAINT email_at CHECK (VALUE LIKE '%@%')",
    "ALTER DOMAIN email ADD CHECK (VALUE <> '')",
    "ALTER DOMAIN email ADD CONSTRAINT email_at CHECK (VALUE LIKE '%@%') NOT VALID",
]


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[Connection]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETUP)
        yield conn


def _scan_and_locks(db: Connection, sql: str) -> tuple[bool, list[str]]:
    scans = "SELECT pg_stat_get_xact_numscans('contacts'::regclass)"
    locks = "SELECT mode FROM pg_locks WHERE relation = 'contacts'::regclass AND pid = pg_backend_pid()"
    with db.transaction():
        before = db.execute(scans).fetchone()
        db.execute(sql)
        after = db.execute(scans).fetchone()
        held = [str(row[0]) for row in db.execute(locks).fetchall()]
    return after != before, held


@pytest.mark.parametrize("sql", CASES)
def test_domain_check_is_flagged_exactly_when_the_server_scans(sql: str, db: Connection) -> None:
    scanned, held = _scan_and_locks(db, sql)
    findings = [
        f.name for f in lint(sql + ";", "case.sql", LintConfig(), only=["constraint-missing-not-valid"])
    ]
    assert (findings == ["constraint-missing-not-valid"]) is scanned
    assert ("ShareLock" in held) is scanned
