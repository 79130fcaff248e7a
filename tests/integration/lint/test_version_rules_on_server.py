"""ADL210 and ADL211 agree with real servers: a statement is flagged exactly when the
target version refuses it."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg import errors

from agentddl.checks.db import PostgresServer
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

Connection = psycopg.Connection[tuple[object, ...]]
SETUP = (
    "CREATE TABLE t (a int UNIQUE, b int GENERATED ALWAYS AS (a + 1) STORED);"
    "CREATE TABLE p (a int) PARTITION BY LIST (a);"
    "CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1);"
    "CREATE TYPE mood AS ENUM ('sad', 'happy');"
)
NEW_SYNTAX = [
    "REINDEX INDEX CONCURRENTLY t_a_key",
    "ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY",
    "ALTER TABLE t ADD COLUMN z text COMPRESSION pglz",
    "ALTER TABLE t ALTER COLUMN a SET COMPRESSION pglz",
    "CREATE OR REPLACE TRIGGER tr AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()",
    "ALTER TABLE t ALTER COLUMN b DROP EXPRESSION",
    "CREATE UNIQUE INDEX u ON t (a) NULLS NOT DISTINCT",
    "ALTER TABLE t ADD UNIQUE NULLS NOT DISTINCT (a)",
    "MERGE INTO t USING t s ON t.a = s.a WHEN MATCHED THEN DELETE",
    "ALTER TABLE t SET ACCESS METHOD heap",
    "SELECT JSON_OBJECT('a': 1)",
    "SELECT '{}' IS JSON",
    "SELECT * FROM JSON_TABLE('[]'::jsonb, '$[*]' COLUMNS (x int PATH '$.x')) jt",
    "MERGE INTO t USING t s ON t.a = s.a WHEN NOT MATCHED BY SOURCE THEN DELETE",
    "MERGE INTO t USING t s ON t.a = s.a WHEN MATCHED THEN DELETE RETURNING t.a",
    "ALTER TABLE t ALTER COLUMN b SET EXPRESSION AS (a + 2)",
    "ALTER TABLE t ADD CONSTRAINT nn NOT NULL a NOT VALID",
    "CREATE TABLE x (a int, NOT NULL a)",
    "ALTER TABLE t ADD COLUMN v int GENERATED ALWAYS AS (a) VIRTUAL",
    "ALTER TABLE t ADD COLUMN v int GENERATED ALWAYS AS (a)",
    "ALTER TABLE t ADD CHECK (a > 0) NOT ENFORCED",
    "CREATE TABLE x (id int, p tstzrange, PRIMARY KEY (id, p WITHOUT OVERLAPS))",
]


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[Connection]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SETUP)
        yield conn


def _flagged(sql: str, version: int, rule: str) -> bool:
    config = LintConfig().with_overrides(version, "psql")
    return rule in [f.name for f in lint(sql + ";", "case.sql", config, only=[rule])]


def _refused(db: Connection, sql: str) -> bool:
    """True when the server rejects the syntax; any later error (a missing function,
    a lock) means it parsed. Runs in a transaction that is rolled back."""
    try:
        with db.transaction(force_rollback=True):
            db.execute(sql)
    except errors.SyntaxError:
        return True
    except psycopg.Error:
        return False
    return False


@pytest.mark.parametrize("sql", NEW_SYNTAX)
def test_new_syntax_is_flagged_exactly_where_the_server_refuses_it(
    sql: str, pg_server: PostgresServer, db: Connection
) -> None:
    flagged = _flagged(sql, pg_server.version, "syntax-not-in-target-version")
    assert flagged is _refused(db, sql)


ENUM_CASES = [
    ("BEGIN;\nALTER TYPE mood ADD VALUE 'calm';\nUPDATE t SET a = 1 WHERE 'calm'::mood IS NULL;\nCOMMIT;"),
    "BEGIN;\nALTER TYPE mood ADD VALUE 'calm';\nCOMMIT;",
    (
        "BEGIN;\nCREATE TYPE lane AS ENUM ('fast');\nALTER TYPE lane ADD VALUE 'slow';\n"
        "CREATE TABLE lanes (l lane DEFAULT 'slow');\nCOMMIT;"
    ),
]


@pytest.mark.parametrize("sql", ENUM_CASES)
def test_enum_add_value_is_flagged_exactly_where_the_migration_fails(
    sql: str, pg_server: PostgresServer, db: Connection
) -> None:
    statements = [s for s in sql.split(";\n") if s.strip() not in ("BEGIN", "COMMIT;", "")]
    try:
        with db.transaction(force_rollback=True):
            for statement in statements:
                db.execute(statement.rstrip(";"))
        failed = False
    except psycopg.Error:
        failed = True
    assert _flagged(sql.rstrip(";"), pg_server.version, "enum-add-value-in-transaction") is failed
