"""`agentddl lint --schema-from postgresql://...`: the schema and table sizes of a live
database (read with pg_dump and pg_class, on every tested major), with the verdicts the
schema.sql source gives (tests/unit/lint/test_schema_from.py), and the database left as
it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from lint_schema_case import MIGRATION, THRESHOLDS, WITH_SCHEMA

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
    code = main(["lint", "m.sql", "--schema-from", user_database, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {(f["line"], f["name"], f["severity"]) for f in report["findings"]} == WITH_SCHEMA
    assert catalog(user_database) == before


def test_a_database_that_does_not_answer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.sql").write_text(MIGRATION)
    assert main(["lint", "m.sql", "--schema-from", "postgresql://nobody@127.0.0.1:9/none"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("agentddl: pg_dump 18") and "127.0.0.1:9/none failed: " in error
    assert "\n" not in error
