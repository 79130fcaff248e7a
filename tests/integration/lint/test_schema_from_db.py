"""`agentddl lint --schema-from postgresql://...`: the schema of a live database (read
with pg_dump, on every tested major), and `--sizes-from postgresql://...` its table
sizes (pg_class), with the verdicts the schema.sql source gives
(tests/unit/lint/test_schema_from.py), and the database left as it was. A schema
database's own sizes are never used: pointed at a staging copy with 10 rows a table,
a plain CREATE INDEX is still an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from lint_schema_case import MIGRATION, ON_LIVE_ROWS, THRESHOLDS

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer

USER_SCHEMA = """
CREATE TABLE public.orders (id integer, code text NOT NULL, qty integer, note varchar(40));
CREATE UNIQUE INDEX orders_id_key ON public.orders (id);
CREATE TABLE public.regions (code text PRIMARY KEY, name text NOT NULL);
INSERT INTO public.orders SELECT g, 'c' || g, g % 7, 'n' FROM generate_series(1, 1000) g;
INSERT INTO public.regions SELECT 'r' || g, 'region ' || g FROM generate_series(1, 20) g;
ANALYZE;
"""


@pytest.fixture
def user_database(pg_server: PostgresServer) -> Iterator[str]:
    dsn = pg_server.create_database()
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(USER_SCHEMA)
        yield dsn
    finally:
        pg_server.drop_database(dsn)


def catalog(dsn: str) -> list[tuple[object, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT c.relname, c.relfilenode, a.attname, a.attnotnull, format_type(a.atttypid, a.atttypmod) "
            "FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 "
            "WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1, 3"
        ).fetchall()


def test_a_live_database(
    user_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentddl.toml").write_text(THRESHOLDS)
    (tmp_path / "m.sql").write_text(MIGRATION)
    before = catalog(user_database)
    code = main(
        ["lint", "m.sql", "--schema-from", user_database, "--sizes-from", user_database, "-f", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {(f["line"], f["name"], f["severity"]) for f in report["findings"]} == ON_LIVE_ROWS
    assert report["sizes"] == report["schema_from"] and "@" not in report["sizes"]
    assert catalog(user_database) == before


STAGING = """
CREATE TABLE public.orders (id bigint PRIMARY KEY, code text NOT NULL);
CREATE TABLE public.regions (code text PRIMARY KEY, name text NOT NULL);
INSERT INTO public.orders SELECT g, 'c' || g FROM generate_series(1, 10) g;
INSERT INTO public.regions SELECT 'r' || g, 'region ' || g FROM generate_series(1, 10) g;
ANALYZE;
"""
INDEX = "CREATE INDEX orders_code_idx ON public.orders (code);\n"


def test_sizes_never_come_from_the_schema_database(
    pg_server_latest: PostgresServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A staging database of 10 rows a table: its schema is used, its sizes are not."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.sql").write_text(INDEX)
    with pg_server_latest.scratch_database() as staging:
        with psycopg.connect(staging, autocommit=True) as conn:
            conn.execute(STAGING)
        assert main(["lint", "m.sql", "--schema-from", staging, "-f", "json"]) == 1
        report = json.loads(capsys.readouterr().out)
        assert report["sizes"] == "none"
        assert [(f["name"], f["severity"]) for f in report["findings"] if f["line"] == 1] == [
            ("require-concurrent-index-creation", "error"),
            ("require-lock-timeout", "warning"),
        ]
        # Given as production's sizes (here: the same small database), it is info.
        assert main(["lint", "m.sql", "--schema-from", staging, "--sizes-from", staging, "-f", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        index = next(f for f in report["findings"] if f["name"] == "require-concurrent-index-creation")
        assert index["severity"] == "info" and "public.orders holds about 10 rows" in index["message"]
        # A table never analyzed has no statistics (reltuples -1, relpages 0): unknown, not empty.
        with psycopg.connect(staging, autocommit=True) as conn:
            conn.execute("CREATE TABLE public.fresh AS SELECT g AS id FROM generate_series(1, 10) g")
        (tmp_path / "m.sql").write_text("CREATE INDEX fresh_id_idx ON public.fresh (id);\n")
        assert main(["lint", "m.sql", "--sizes-from", staging, "-f", "json"]) == 1
        report = json.loads(capsys.readouterr().out)
        index = next(f for f in report["findings"] if f["name"] == "require-concurrent-index-creation")
        assert index["severity"] == "error" and "holds" not in index["message"]


def test_a_database_that_does_not_answer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.sql").write_text(MIGRATION)
    assert main(["lint", "m.sql", "--schema-from", "postgresql://nobody@127.0.0.1:9/none"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("agentddl: pg_dump 18") and "127.0.0.1:9/none failed: " in error
    assert "\n" not in error
