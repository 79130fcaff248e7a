"""`agentddl prove` end to end: the JSON report, exit codes, progress, and what proving in
place (--dsn) leaves behind in a database (nothing of its own, nothing of anyone else's
touched)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import psycopg
import pytest
from profiles import ROOT, example_profiles
from prove_weakenings import WEAKENINGS
from psycopg import sql
from psycopg.conninfo import make_conninfo

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive

PROFILE = str(ROOT / "schemas" / "default.yaml")
SMALL = ["--workers", "2", "--runs", "10", "--lease-seconds", "1"]
TOTALS = [
    "duplicate_effects",
    "lost_runs",
    "stuck_runs",
    "stale_writes_accepted",
    "lost_outbox",
    "duplicate_deliveries",
    "runs_completed",
    "seconds",
]


def count(dsn: str, query: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode()).fetchone()
    assert row is not None
    return int(row[0])


def databases(server: PostgresServer) -> set[str]:
    with psycopg.connect(server.admin_dsn) as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database")}


def test_json_report_of_a_fresh_install_on_a_server(
    pg_server_latest: PostgresServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)  # else it is the --dsn to prove in
    before = databases(pg_server_latest)
    argv = ["prove", "--profile", PROFILE, "--server", pg_server_latest.admin_dsn, *SMALL, "--format", "json"]
    code = main([*argv, "--scenario", "claim_race", "--scenario", "version_races"])
    assert databases(pg_server_latest) == before  # its scratch database is dropped again
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    assert [s["name"] for s in report["scenarios"]] == ["claim_race", "version_races"]
    assert all(s["held"] and s["violations"] == [] for s in report["scenarios"])
    assert list(report["totals"]) == TOTALS
    assert report["totals"]["runs_completed"] == 10
    assert report["run"]["strategies"] == ["skip_locked"] and report["run"]["workers"] == 2
    assert report["tool"] == "prove" and report["profile"] == "default" and report["findings"] == []
    # not a terminal: progress comes as plain lines on stderr, a run is never silent
    assert "agentddl: skip_locked: installing the schema into a scratch database" in captured.err
    assert "agentddl: skip_locked claim_race: running" in captured.err


def test_existing_weakened_schema_exits_1_and_leaves_nothing_behind(
    pg_server_latest: PostgresServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weakening = next(w for w in WEAKENINGS if w.name == "version check removed from transition_run")
    model = derive(example_profiles()["default"])
    with pg_server_latest.scratch_database() as dsn:
        queries = tmp_path / "queries.sql"
        queries.write_text(weakening.install(model, dsn))
        with psycopg.connect(dsn, autocommit=True) as conn:  # someone's finished run and tenant
            conn.execute("INSERT INTO agent.tenants VALUES (gen_random_uuid(), 'theirs')")
            conn.execute(
                "INSERT INTO agent.runs (tenant_id, kind, status, finished_at, version) "
                "SELECT tenant_id, 'billing', 'succeeded', now(), 3 FROM agent.tenants"
            )
        argv = ["prove", "--profile", PROFILE, "--dsn", dsn, "--existing", "--queries", str(queries)]
        code = main([*argv, "--workers", "2", "--runs", "400", "--scenario", "version_races"])
        assert count(dsn, "SELECT count(*) FROM agent.runs") == 1  # theirs, and only theirs
        assert count(dsn, "SELECT count(*) FROM agent.tenants") == 1
        assert count(dsn, "SELECT count(*) FROM agent.runs WHERE version = 3 AND kind = 'billing'") == 1
    captured = capsys.readouterr()
    assert code == 1
    assert "BROKEN" in captured.out
    assert "1 scenarios broken: skip_locked/version_races" in captured.err
    assert "error ADP107 [one-winner-per-version] skip_locked/version_races" in captured.out
    assert captured.err.count("--existing is deprecated") == 1  # the old command line still works


def test_existing_refuses_a_database_with_live_runs(
    pg_server_latest: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, derive(example_profiles()["default"]))
            conn.execute("INSERT INTO agent.tenants VALUES (gen_random_uuid(), 'live')")
            conn.execute(
                "INSERT INTO agent.runs (tenant_id, kind) SELECT tenant_id, 'queued' FROM agent.tenants"
            )
        code = main(["prove", "--profile", PROFILE, "--dsn", dsn, "--existing", *SMALL])
        assert count(dsn, "SELECT count(*) FROM agent.runs WHERE status = 'queued'") == 1
        second = main(["prove", "--profile", PROFILE, "--dsn", dsn, *SMALL])  # --dsn alone: the same
    err = capsys.readouterr().err
    assert (code, second) == (2, 2)
    assert err.count("1 live runs in agent.runs") == 2 and "prove a copy" in err


def test_a_server_older_than_the_profile_engine_is_one_line_exit_2(
    pg_servers: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine-18 profile's schema on a 14 server was a 43-57-line traceback."""
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)  # else it is the --dsn to prove in
    server = pg_servers.get(14)
    before = databases(server)
    newest = str(ROOT / "schemas" / "examples" / "newest-engine.yaml")
    assert main(["prove", "--profile", newest, "--server", server.admin_dsn, *SMALL]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentddl: profile 'newest_engine' targets PostgreSQL 18, but the server at ")
    assert err.count("\n") == 1, err
    assert databases(server) == before


def test_existing_as_a_member_of_the_roles_not_a_superuser(
    pg_server_latest: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """prove works as the schema's roles: a login that may not assume them is told so
    (exit 2); once it is a member of the four, it proves the schema it does not own."""
    login = f"prover_{secrets.token_hex(4)}"
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as admin:
            install_schema(admin, derive(example_profiles()["default"]))
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(login)))
        as_login = make_conninfo(dsn, user=login)
        argv = [
            "prove",
            "--profile",
            PROFILE,
            "--dsn",
            as_login,
            *SMALL,
            "--scenario",
            "version_races",
        ]
        refused = main(argv)
        with psycopg.connect(dsn, autocommit=True) as admin:
            for role in ("agent_owner", "agent_app", "agent_relay", "agent_readonly"):
                admin.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(role), sql.Identifier(login)))
        proven = main(argv)
    with psycopg.connect(pg_server_latest.admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(login)))
    assert (refused, proven) == (2, 0)
    assert "cannot SET ROLE agent_app" in capsys.readouterr().err
