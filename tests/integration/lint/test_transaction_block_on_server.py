"""ADL103 agrees with real servers: inside BEGIN ... COMMIT (or a DO block) it flags a
statement exactly when the server refuses it with "cannot run inside a transaction block"."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg import errors

from agentddl.checks.db import PostgresServer
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

Connection = psycopg.Connection[tuple[object, ...]]
RULE = "concurrently-in-transaction"
SETUP = """
CREATE TABLE t (a int PRIMARY KEY, b int);
CREATE INDEX t_b_idx ON t (b);
CREATE TABLE p (a int) PARTITION BY LIST (a);
CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1);
CREATE MATERIALIZED VIEW mv AS SELECT a FROM t;
CREATE UNIQUE INDEX mv_a ON mv (a);
CREATE TYPE mood AS ENUM ('sad');
"""
STATEMENTS = [
    "CREATE INDEX CONCURRENTLY t_b2 ON t (b)",
    "CREATE INDEX t_b3 ON t (b)",
    "DROP INDEX CONCURRENTLY t_b_idx",
    "DROP INDEX t_b_idx",
    "REINDEX INDEX CONCURRENTLY t_b_idx",
    "REINDEX TABLE t",
    "REINDEX SCHEMA public",
    "ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY",
    "ALTER TABLE p DETACH PARTITION p1",
    "VACUUM t",
    "ANALYZE t",
    "CLUSTER",
    "CLUSTER t USING t_b_idx",
    "REFRESH MATERIALIZED VIEW CONCURRENTLY mv",
    "ALTER SYSTEM SET work_mem = '8MB'",
    "CREATE DATABASE agentddl_never_created",
    "ALTER TYPE mood ADD VALUE 'happy'",
    "DO $$ BEGIN CREATE INDEX CONCURRENTLY t_b4 ON t (b); END $$",
    "DO $$ BEGIN CREATE INDEX t_b5 ON t (b); END $$",
]


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[Connection]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETUP)
        yield conn


def _refused_in_block(conn: Connection, sql: str) -> bool:
    try:
        with conn.transaction(force_rollback=True):
            conn.execute(sql)
    except errors.ActiveSqlTransaction:
        return True
    return False


def _flagged(sql: str, major: int) -> bool:
    config = LintConfig().with_overrides(major, "psql")
    wrapped = sql + ";" if sql.startswith("DO") else f"BEGIN;\n{sql};\nCOMMIT;"
    return RULE in [f.name for f in lint(wrapped, "case.sql", config, only=[RULE])]


def test_flagged_exactly_when_the_server_refuses(db: Connection) -> None:
    major = int(str(db.execute("SHOW server_version_num").fetchone()[0])) // 10000  # type: ignore[index]
    disagreements = []
    for sql in STATEMENTS:
        refused = _refused_in_block(db, sql)
        if _flagged(sql, major) != refused:
            disagreements.append(f"{sql}: server refuses={refused}")
    assert not disagreements, "\n".join(disagreements)
