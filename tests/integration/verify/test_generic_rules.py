"""Every generic verify rule on real PostgreSQL: fixture schemas that break it and
schemas that don't.

A fixture (fixtures/<rule-name>/*.sql) builds objects in schema `s`; its
`-- expect: CODE object [severity]` lines are every finding all generic rules must
report on it, no more (`-- expect: none`: no finding at all). Each fixture runs in a
transaction that is rolled back, so one database serves them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from agentddl.checks.db import PostgresServer
from agentddl.checks.verify import generic_findings, invalid_indexes
from agentddl.checks.verify.rules import rules_in_group

FIXTURES = Path(__file__).parent / "fixtures"
FILES = sorted(FIXTURES.glob("*/*.sql"))
_EXPECT = re.compile(r"^-- expect: (.+)$", re.M)


def expected(path: Path) -> set[tuple[str, ...]]:
    lines = _EXPECT.findall(path.read_text(encoding="utf-8"))
    assert lines, f"{path}: no '-- expect:' line"
    return {tuple(line.split()) for line in lines if line.strip() != "none"}


@pytest.fixture(scope="module")
def connection(pg_server: PostgresServer) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn) as conn:
        yield conn


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_fixture(path: Path, connection: psycopg.Connection[tuple[object, ...]]) -> None:
    try:
        connection.execute("CREATE SCHEMA s")
        connection.execute(path.read_text(encoding="utf-8").encode())
        findings = generic_findings(connection, "s")
    finally:
        connection.rollback()
    got = {(f.code, f.object, f.severity) for f in findings}
    wanted = expected(path)
    assert {g[: len(w)] for g in got for w in wanted if g[:2] == w[:2]} >= wanted, findings
    assert {g[:2] for g in got} == {w[:2] for w in wanted}, findings


def test_every_generic_rule_has_a_breaking_and_a_clean_fixture() -> None:
    for rule in rules_in_group("generic"):
        files = list((FIXTURES / rule.name).glob("*.sql"))
        codes = [{e[0] for e in expected(f)} for f in files]
        assert any(rule.code in c for c in codes), f"{rule.name}: no fixture breaks it"
        assert any(rule.code not in c for c in codes), f"{rule.name}: no fixture keeps it"


def test_a_failed_concurrent_index_build_leaves_an_invalid_index(pg_server_latest: PostgresServer) -> None:
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA s; CREATE TABLE s.ops (id int PRIMARY KEY, k text)")
        conn.execute("INSERT INTO s.ops VALUES (1, 'a'), (2, 'a')")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY ops_k_key ON s.ops (k)")
        assert [(f.code, f.object, f.severity) for f in invalid_indexes(conn, "s")] == [
            ("ADV104", "s.ops_k_key", "error")
        ]
        conn.execute("DELETE FROM s.ops WHERE id = 2")
        conn.execute("REINDEX INDEX CONCURRENTLY s.ops_k_key")
        assert invalid_indexes(conn, "s") == []


def test_a_failed_reindex_concurrently_leaves_a_copy_to_drop(pg_server_latest: PostgresServer) -> None:
    # REINDEX CONCURRENTLY waits for writers; one that stays open makes it time out after
    # it created its transient copy (t_k_ccnew): invalid, and the same index as t_k.
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA s; CREATE TABLE s.t (id int PRIMARY KEY, k int)")
        conn.execute("CREATE INDEX t_k ON s.t (k)")
        with psycopg.connect(dsn) as writer:
            writer.execute("INSERT INTO s.t VALUES (1, 1)")
            conn.execute("SET lock_timeout = '200ms'")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                conn.execute("REINDEX INDEX CONCURRENTLY s.t_k")
            writer.rollback()
        findings = generic_findings(conn, "s")
        assert [(f.code, f.object) for f in findings] == [("ADV104", "s.t_k_ccnew")]
        conn.execute(findings[0].fix.split(" (")[0].encode())
        assert generic_findings(conn, "s") == []


def test_fixes_run_as_printed_on_names_that_need_quoting(pg_server_latest: PostgresServer) -> None:
    fixture = FIXTURES / "timestamp-without-time-zone" / "quoted_names.sql"
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA s")
        conn.execute(fixture.read_text(encoding="utf-8").encode())
        runnable = [f for f in generic_findings(conn, "s") if f.code in ("ADV101", "ADV110")]
        assert len(runnable) == 2
        for finding in runnable:
            conn.execute(finding.fix.encode())
        assert {f.code for f in generic_findings(conn, "s")} == {"ADV106", "ADV107"}


def test_not_enforced_constraints_are_reported_with_a_fix_that_runs(pg_servers: Any) -> None:
    # NOT ENFORCED (18+) is also not validated: VALIDATE CONSTRAINT would be refused
    with pg_servers.get(18).scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("""
            CREATE SCHEMA s; CREATE TABLE s.p (id int PRIMARY KEY);
            CREATE TABLE s.t (id int PRIMARY KEY, n int, pid int REFERENCES s.p NOT ENFORCED,
                CONSTRAINT t_n_check CHECK (n > 0) NOT ENFORCED);
            CREATE INDEX ON s.t (pid);
        """)
        findings = {f.object: f for f in generic_findings(conn, "s")}
        assert set(findings) == {"s.t.t_n_check", "s.t.t_pid_fkey"}
        assert all("NOT ENFORCED" in f.message for f in findings.values())
        conn.execute(findings["s.t.t_pid_fkey"].fix.encode())
        assert set(f.object for f in generic_findings(conn, "s")) == {"s.t.t_n_check"}


def test_an_unlogged_mark_on_a_partitioned_table_is_not_reported(pg_servers: Any) -> None:
    # Before 18, CREATE UNLOGGED TABLE ... PARTITION BY marks the parent only: its
    # partitions are logged, and no row is lost in a crash.
    with pg_servers.get(15).scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("""
            CREATE SCHEMA s;
            CREATE UNLOGGED TABLE s.p (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
            CREATE TABLE s.p_2026 PARTITION OF s.p FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
        """)
        assert generic_findings(conn, "s") == []
