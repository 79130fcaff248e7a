"""drop-locks-linked-table's claim, proven on a real server: each drop runs inside
BEGIN ... ROLLBACK on the fixture schema, and the tables other than its own that
pg_locks shows in ACCESS EXCLUSIVE mode are exactly those the rule names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from agentddl.checks.db import PostgresServer
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.pg.schema_sources import facts_from_file

Connection = psycopg.Connection[tuple[object, ...]]
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "lint" / "drop-locks-linked-table"
SCHEMA = FIXTURE / "linked.schema.sql"
CASES = [
    "DROP TABLE agent.run_notes CASCADE",
    "DROP TABLE agent.note_tags",
    "DROP TABLE agent.runs CASCADE",
    "DROP TABLE agent.audit_log",
    "ALTER TABLE agent.run_notes DROP COLUMN run_id",
    "ALTER TABLE agent.run_notes DROP COLUMN body",
    "ALTER TABLE agent.note_tags DROP COLUMN note_id",
    "ALTER TABLE agent.run_notes DROP CONSTRAINT run_notes_run_id_fkey",
    "ALTER TABLE agent.runs DROP CONSTRAINT runs_parent_fk",
    "ALTER TABLE agent.runs DROP COLUMN id CASCADE",
]
_NAMED = re.compile(r"ACCESS EXCLUSIVE on (.+?)(?: until the transaction commits)?, through")


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[Connection]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA agent")
        conn.execute(SCHEMA.read_text())
        yield conn


def _locked_elsewhere(conn: Connection, sql: str, own: str) -> set[str]:
    """The tables besides `own` the statement holds ACCESS EXCLUSIVE on, from pg_locks."""
    with conn.transaction(force_rollback=True):
        conn.execute(sql)
        rows = conn.execute(
            "SELECT c.relnamespace::regnamespace::text || '.' || c.relname FROM pg_locks l"
            " JOIN pg_class c ON c.oid = l.relation"
            " WHERE l.pid = pg_backend_pid() AND l.granted AND l.mode = 'AccessExclusiveLock'"
            " AND c.relkind IN ('r', 'p')"
        ).fetchall()
    return {str(name) for (name,) in rows} - {own}


def _claimed(sql: str, major: int) -> set[str]:
    """The other tables drop-locks-linked-table says the statement locks."""
    config = LintConfig(pg_version=major)
    findings = lint(
        sql + ";\n", "case.sql", config, only=["drop-locks-linked-table"], schema=facts_from_file(SCHEMA)
    )
    named = [m.group(1) for f in findings if (m := _NAMED.search(f.message))]
    return {name for names in named for name in names.split(", ")}


def test_the_rule_names_the_tables_the_server_locks(db: Connection) -> None:
    major = int(str(db.execute("SHOW server_version_num").fetchone()[0])) // 10000  # type: ignore[index]
    wrong, seen_other_locks = [], 0
    for sql in CASES:
        own = sql.split()[2].removesuffix(";")
        real, claimed = _locked_elsewhere(db, sql, own), _claimed(sql, major)
        seen_other_locks += bool(real)
        if real != claimed:
            wrong.append(f"{sql}: the server locked {sorted(real)}, the rule named {sorted(claimed)}")
    assert not wrong, "\n".join(wrong)
    assert seen_other_locks >= 6  # the cases do lock other tables: the test compares something
