"""`agentddl trace` end to end: JSON shape, exit codes, one-line errors, Alembic
revisions, and the target database left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer

FIXTURES = Path(__file__).parents[2] / "fixtures" / "trace"
SCHEMA = FIXTURES / "schema.sql"
# An Alembic revision on schema.sql up to its `def upgrade():` line (line 8): a body follows.
REVISION_HEAD = """\
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade():
"""
REVISION = REVISION_HEAD + (
    '    op.add_column("orders", sa.Column("priority", sa.Integer(), server_default="0"))\n'
    "    with op.get_context().autocommit_block():\n"
    '        op.create_index("orders_priority_idx", "orders", ["priority"], postgresql_concurrently=True)\n'
)


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["trace", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def databases(server: PostgresServer) -> set[str]:
    with psycopg.connect(server.admin_dsn, autocommit=True) as conn:
        return {name for (name,) in conn.execute("SELECT datname FROM pg_database")}


def test_json_report_and_exit_code_for_a_rewrite(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    before = databases(trace_server)
    dsn = trace_server.admin_dsn
    code, report = run_json(
        capsys, str(FIXTURES / "06_int_to_bigint.sql"), "--schema-sql", str(SCHEMA), "--server", dsn
    )
    assert code == 1  # ADT101 table-rewrite is an error
    (statement,) = report["statements"]  # type: ignore[misc]
    assert statement["file"].endswith("06_int_to_bigint.sql") and statement["line"] == 5
    assert {
        "relation": "public.orders",
        "mode": "AccessExclusiveLock",
        "blocks": ["reads", "writes", "claims"],
    } in statement["locks"]
    assert "public.orders" in statement["rewritten"] and "public.orders" in statement["scanned"]
    assert statement["duration_ms"] > 0 and statement["lock_held_ms"] >= statement["duration_ms"]
    assert statement["lock_timeout_ms"] == 0 and "blocked_ms" not in statement and "error" not in statement
    assert {f["code"] for f in report["findings"]} >= {"ADT101", "ADT105"}  # type: ignore[union-attr]
    assert report["tool"] == "trace" and report["server_version"] == trace_server.version
    with psycopg.connect(dsn) as conn:  # the target database got nothing
        assert conn.execute("SELECT to_regclass('public.orders')").fetchone() == (None,)
    assert databases(trace_server) == before  # the scratch database is gone


def test_no_error_findings_exit_0(trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "07_add_column_now.sql"
    code = main(["trace", str(path), "--schema-sql", str(SCHEMA), "--server", trace_server.admin_dsn])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "AccessExclusive public.orders" in out and "no-lock-timeout" in out


def test_an_alembic_revision(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    revision = tmp_path / "0002_priority.py"
    revision.write_text(REVISION, encoding="utf-8")
    code, report = run_json(
        capsys, str(revision), "--schema-sql", str(SCHEMA), "--server", trace_server.admin_dsn
    )
    statements = report["statements"]
    assert [(s["line"], s["in_transaction"]) for s in statements] == [(9, True), (11, False)]  # type: ignore[index]
    assert statements[0]["locks"][0]["mode"] == "AccessExclusiveLock"  # type: ignore[index]
    assert statements[0]["rewritten"] == []  # type: ignore[index]
    assert all("error" not in s for s in statements)  # type: ignore[union-attr]
    assert code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.sql"], "missing.sql: no such file or directory"),
        (
            [str(FIXTURES / "01_create_index.sql"), "--schema-sql", "nope.sql"],
            "--schema-sql nope.sql: no such file",
        ),
        ([str(FIXTURES / "01_create_index.sql"), "--empty", "--profile", "x.yaml"], "--empty and --profile"),
        (
            [str(FIXTURES / "01_create_index.sql"), "--server", "postgresql://agentddl@127.0.0.1:1/postgres"],
            "cannot connect to PostgreSQL at 127.0.0.1:1/postgres",
        ),
        (
            [str(FIXTURES / "01_create_index.sql"), "--pg-version", "18", "--server", "postgresql://h/db"],
            "--pg-version starts an embedded server: not with --server",
        ),
        (
            [str(FIXTURES / "01_create_index.sql"), "--server", "nonsense=1"],
            'invalid DSN: invalid connection option "nonsense"',
        ),
    ],
)
def test_usage_errors_are_one_line_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_an_unknown_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", str(FIXTURES / "01_create_index.sql"), "--format", "xml"]) == 2
    assert (
        "'xml' is not one of 'text', 'json', 'sarif', 'github', 'gitlab', 'markdown'"
        in capsys.readouterr().err
    )


def test_a_pg_version_that_is_not_installed_is_an_error_not_another_major(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
    assert main(["trace", str(FIXTURES / "01_create_index.sql"), "--empty", "--pg-version", "9"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no PostgreSQL 9 found" in err and len(err.splitlines()) == 1


def test_a_schema_sql_that_fails_is_one_line_at_its_error_and_the_scratch_database_goes(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text("CREATE TABLE t (a int);\nINSERT INTO t\n  SELECT nope FROM t;\n", encoding="utf-8")
    before = databases(trace_server)
    migration = str(FIXTURES / "01_create_index.sql")
    assert main(["trace", migration, "--schema-sql", str(schema), "--server", trace_server.admin_dsn]) == 2
    err = capsys.readouterr().err.strip()
    message = 'the schema SQL failed on the scratch database: column "nope" does not exist'
    assert err == f"agentddl: {schema}:3:10: {message}"
    assert databases(trace_server) == before


def test_rows_need_a_profile(trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(FIXTURES / "01_create_index.sql"), "--schema-sql", str(SCHEMA), "--rows", "10"]
    assert main(["trace", *args, "--server", trace_server.admin_dsn]) == 2
    assert "--rows seeds a profile's schema" in capsys.readouterr().err


def test_a_failing_statement_stops_the_migration_and_the_scratch_database_still_goes(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    migration = tmp_path / "broken.sql"
    migration.write_text(
        "BEGIN;\nALTER TABLE public.orders ADD COLUMN x int;\nALTER TABLE public.nope ADD COLUMN y int;\n"
        "COMMIT;\nCREATE INDEX orders_x_idx ON public.orders (x);\n",
        encoding="utf-8",
    )
    before = databases(trace_server)
    code, report = run_json(
        capsys, str(migration), "--schema-sql", str(SCHEMA), "--server", trace_server.admin_dsn
    )
    assert code == 1
    statements = report["statements"]
    assert [s["line"] for s in statements] == [2, 3]  # type: ignore[index]
    assert statements[1]["error"].startswith("42P01")  # type: ignore[index]
    assert statements[0]["lock_held_ms"] > 0  # held until the ROLLBACK  # type: ignore[index]
    assert "ADT106" in {f["code"] for f in report["findings"]}  # type: ignore[union-attr]
    assert databases(trace_server) == before


def test_empty_traces_a_first_revision(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from profiles import ROOT

    args = [str(ROOT / "migrations" / "versions"), "--empty", "--server", trace_server.admin_dsn]
    code, report = run_json(capsys, *args)
    statements = report["statements"]
    if trace_server.version < 15:  # the default profile's revision uses UNIQUE NULLS NOT DISTINCT
        assert code == 1 and statements[-1]["error"].startswith("42601")  # type: ignore[index]
        return
    assert code == 0 and len(statements) > 50  # type: ignore[arg-type]
    assert all(s["in_transaction"] and "error" not in s for s in statements)  # type: ignore[union-attr]
    assert report["findings"] == []  # everything it locks or rewrites, it created


def test_rows_seed_the_profile_schema(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from profiles import ROOT

    name = "newest-engine.yaml" if trace_server.version >= 18 else "old-engine.yaml"
    profile = ROOT / "schemas" / "examples" / name
    migration = FIXTURES / "profile" / "attempt_count_bigint.sql"
    args = [str(migration), "--profile", str(profile), "--rows", "2000", "--server", trace_server.admin_dsn]
    code, report = run_json(capsys, *args)
    (statement,) = report["statements"]  # type: ignore[misc]
    assert code == 1
    assert "agent.runs" in statement["rewritten"] and "agent.runs_pkey" in statement["rewritten"]
    (rewrite,) = [f for f in report["findings"] if f["code"] == "ADT101"]  # type: ignore[union-attr]
    assert " (0 bytes here)" not in rewrite["message"]  # the seeded rows were there to copy
