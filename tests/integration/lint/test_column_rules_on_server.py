"""ADL201/205/207/208/209/210 agree with a real server: a rule fires exactly when
PostgreSQL scans or rewrites the pre-existing table (or rejects the syntax)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest
from psycopg import errors

from agentddl.checks.db import PostgresServer
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

Connection = psycopg.Connection[tuple[object, ...]]
TABLE = (
    "CREATE TABLE r (id int PRIMARY KEY);"
    "INSERT INTO r SELECT generate_series(1, 50);"
    "CREATE TABLE t (id int, c int, ts timestamp, v varchar(10), n numeric(10,2));"
    "INSERT INTO t SELECT g, g, now(), 'x', 1 FROM generate_series(1, 50) g;"
)


@dataclass(frozen=True)
class Case:
    rule: str
    sql: str  # the migration the linter sees; `t` and `r` existed before it
    effect: str  # "scan" or "rewrite": what the rule's finding claims
    since: int = 0  # first major with this syntax

    def __str__(self) -> str:
        return f"{self.rule}: {self.sql}"


CASES = [
    Case("set-not-null-requires-check", "ALTER TABLE t ALTER COLUMN c SET NOT NULL;", "scan"),
    Case(
        "set-not-null-requires-check",
        "ALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL) NOT VALID;\n"
        "ALTER TABLE t VALIDATE CONSTRAINT t_c_nn;\n"
        "ALTER TABLE t ALTER COLUMN c SET NOT NULL;",
        "scan",
    ),
    Case(
        "set-not-null-requires-check",
        "ALTER TABLE t ADD CONSTRAINT t_ok CHECK (c IS NOT NULL AND id > 0);\n"
        "ALTER TABLE t ALTER COLUMN c SET NOT NULL;",
        "scan",
    ),
    Case(
        "set-not-null-requires-check",
        "ALTER TABLE t ADD CONSTRAINT t_c_nn CHECK (c IS NOT NULL);\n"
        "ALTER TABLE t DROP CONSTRAINT t_c_nn, ALTER COLUMN c SET NOT NULL;",
        "scan",
    ),
    Case("set-not-null-requires-check", "ALTER TABLE t ADD CONSTRAINT t_c_nn NOT NULL c;", "scan", since=18),
    Case(
        "set-not-null-requires-check",
        "ALTER TABLE t ADD CONSTRAINT t_c_nn NOT NULL c NOT VALID;",
        "scan",
        since=18,
    ),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD CHECK (id > 0);", "scan"),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD CHECK (id > 0) NOT VALID;", "scan"),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD FOREIGN KEY (c) REFERENCES r (id);", "scan"),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD COLUMN d int REFERENCES r (id);", "scan"),
    Case(
        "constraint-missing-not-valid", "ALTER TABLE t ADD COLUMN d int DEFAULT 1 REFERENCES r (id);", "scan"
    ),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD COLUMN d int CHECK (d > 0);", "scan"),
    Case("constraint-missing-not-valid", "ALTER TABLE t ADD CHECK (id > 0) NOT ENFORCED;", "scan", since=18),
    *(
        Case("rewriting-default", f"ALTER TABLE t ADD COLUMN d {definition};", "rewrite")
        for definition in (
            "int DEFAULT 0",
            "timestamptz DEFAULT now()",
            "timestamptz DEFAULT clock_timestamp()",
            "float8 DEFAULT random()",
            "text DEFAULT timeofday()",
            "jsonb NOT NULL DEFAULT '{}'",
            "timestamptz DEFAULT statement_timestamp()",
            "int DEFAULT NULL",
        )
    ),
    Case(
        "rewriting-default", "ALTER TABLE t ADD COLUMN d uuid DEFAULT gen_random_uuid();", "rewrite", since=13
    ),
    *(
        Case("add-generated-or-serial-column", f"ALTER TABLE t ADD COLUMN d {definition};", "rewrite")
        for definition in (
            "bigserial",
            "bigint GENERATED ALWAYS AS IDENTITY",
            "int GENERATED ALWAYS AS (id * 2) STORED",
        )
    ),
    Case(
        "add-generated-or-serial-column",
        "ALTER TABLE t ADD COLUMN d int GENERATED ALWAYS AS (id * 2) VIRTUAL;",
        "rewrite",
        since=18,
    ),
    *(
        Case("column-type-change-rewrites", sql, "rewrite")
        for sql in (
            "ALTER TABLE t ALTER COLUMN c TYPE bigint;",
            "ALTER TABLE t ALTER COLUMN v TYPE varchar(20);",
            "ALTER TABLE t ALTER COLUMN v TYPE text;",
            "ALTER TABLE t ALTER COLUMN n TYPE numeric(12,2);",
            "ALTER TABLE t ALTER COLUMN n TYPE numeric;",
            "ALTER TABLE t ALTER COLUMN v TYPE text USING v::text;",
            "ALTER TABLE t ALTER COLUMN v TYPE text USING lower(v);",
            "SET timezone = 'Europe/Paris';\nALTER TABLE t ALTER COLUMN ts TYPE timestamptz;",
            "SET timezone = 'UTC';\nALTER TABLE t ALTER COLUMN ts TYPE timestamptz;",
            "ALTER TABLE t ADD COLUMN w varchar(20);\nALTER TABLE t ALTER COLUMN w TYPE varchar(10);",
            "ALTER TABLE t ADD COLUMN w varchar(20);\nALTER TABLE t ALTER COLUMN w TYPE varchar(30);",
            "ALTER TABLE t ADD COLUMN w text;\nALTER TABLE t ALTER COLUMN w TYPE varchar(30);",
            "ALTER TABLE t ADD COLUMN w numeric(8,2);\nALTER TABLE t ALTER COLUMN w TYPE numeric(8,3);",
            "ALTER TABLE t ADD COLUMN w cidr;\nALTER TABLE t ALTER COLUMN w TYPE inet;",
            "ALTER TABLE t ADD COLUMN w timestamp(3);\nALTER TABLE t ALTER COLUMN w TYPE timestamp;",
        )
    ),
]


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[Connection]:
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


def _findings(case: Case, version: int) -> list[str]:
    config = LintConfig().with_overrides(version, "psql")
    return [f.name for f in lint(case.sql, "case.sql", config, only=[case.rule])]


def _run(db: Connection, sql: str) -> tuple[bool, bool]:
    """Run a migration's statements on the prepared table: (last statement scanned t,
    last statement rewrote t). Scans are counted inside the statement's transaction."""
    db.execute(TABLE)
    *setup, last = [s for s in sql.split(";\n") if s.strip()]
    for statement in setup:
        db.execute(statement)
    relfile = "SELECT relfilenode FROM pg_class WHERE oid = 't'::regclass"
    scans = "SELECT pg_stat_get_xact_numscans('t'::regclass)"
    with db.transaction():
        before = (db.execute(relfile).fetchone(), db.execute(scans).fetchone())
        db.execute(last.rstrip(";"))
        after = (db.execute(relfile).fetchone(), db.execute(scans).fetchone())
    return after[1] != before[1], after[0] != before[0]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_rule_fires_exactly_when_the_server_scans_or_rewrites(
    case: Case, pg_server: PostgresServer, db: Connection
) -> None:
    version = pg_server.version
    if version < case.since:
        with pytest.raises(errors.SyntaxError):
            _run(db, case.sql)
        assert _findings(case, version) == []
        syntax = [
            f.name
            for f in lint(
                case.sql,
                "case.sql",
                LintConfig().with_overrides(version, "psql"),
                only=["syntax-not-in-target-version"],
            )
        ]
        assert syntax == ["syntax-not-in-target-version"]
        return
    scanned, rewrote = _run(db, case.sql)
    happened = rewrote if case.effect == "rewrite" else scanned or rewrote
    assert (_findings(case, version) == [case.rule]) is happened, (scanned, rewrote)
