"""`agentddl verify` end to end on real PostgreSQL: exit codes, formats, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile

DEFAULT = ROOT / "schemas" / "default.yaml"


def verify(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(["verify", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def installed_default(pg_server_latest: PostgresServer) -> Any:
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as connection:
            install_schema(connection, derive(load_profile(DEFAULT)))
        yield dsn


def test_profile_clean_exits_0_with_json(capsys: Any, installed_default: str) -> None:
    code, out, _ = verify(capsys, "--dsn", installed_default, "--profile", str(DEFAULT), "--format", "json")
    document = json.loads(out)
    assert code == 0, document
    keys = ["tool", "schema_version", "database", "server_version", "schemas", "profile"]
    keys += ["findings", "summary"]
    assert list(document) == keys
    assert document["schemas"] == ["agent"] and document["profile"] == "default"
    assert document["findings"] == [] and document["summary"] == {"error": 0, "warning": 0, "info": 0}


def test_a_dropped_index_exits_1_and_is_named(capsys: Any, installed_default: str) -> None:
    with psycopg.connect(installed_default, autocommit=True) as connection:
        connection.execute("DROP INDEX agent.outbox_pending_idx")
        try:
            code, out, _ = verify(capsys, "--dsn", installed_default, "--profile", str(DEFAULT))
            sarif_code, sarif, _ = verify(
                capsys, "--dsn", installed_default, "--profile", str(DEFAULT), "--format", "sarif"
            )
        finally:
            connection.execute("CREATE INDEX outbox_pending_idx ON agent.outbox (available_at) "
                               "WHERE delivered_at IS NULL AND dead_at IS NULL")
    assert code == sarif_code == 1
    assert "error ADV121 [declared-index] agent.outbox_pending_idx" in out
    assert "fix: CREATE INDEX CONCURRENTLY outbox_pending_idx ON agent.outbox" in out
    result = json.loads(sarif)["runs"][0]["results"][0]
    location = result["locations"][0]["logicalLocations"][0]
    assert result["ruleId"] == "ADV121" and location["fullyQualifiedName"] == "agent.outbox_pending_idx"


def test_generic_only_exit_code_follows_severity(capsys: Any, pg_server_latest: PostgresServer) -> None:
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("CREATE SCHEMA app; CREATE TABLE app.t (id int PRIMARY KEY, doc json)")
        code, out, _ = verify(capsys, "--dsn", dsn)
        assert code == 0  # a warning only
        assert "warning ADV109 [json-instead-of-jsonb] app.t.doc" in out
        assert "verify: 0 error(s), 1 warning(s), 0 info." in out
        connection.execute("""
            CREATE TABLE app.p (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
            CREATE TABLE app.p1 PARTITION OF app.p FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
            CREATE INDEX p_at ON ONLY app.p (at);
        """)
        code, out, _ = verify(capsys, "--dsn", dsn, "--schema", "app")
        assert code == 1 and "error ADV104 [invalid-index] app.p_at" in out
        code, _, err = verify(capsys, "--dsn", dsn, "--schema", "nope")
        assert code == 2 and err == "agentddl: schema nope not found in the database\n"


def test_an_unreachable_database_is_one_line(capsys: Any) -> None:
    code, out, err = verify(capsys, "--dsn", "postgresql://nobody@127.0.0.1:1/app")
    assert code == 2 and out == ""
    assert err.startswith("agentddl: cannot connect to PostgreSQL at 127.0.0.1:1/app: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    code, out, err = verify(capsys, "--dsn", "not a dsn")
    assert code == 2 and out == "" and err.startswith("agentddl: invalid DSN: ") and err.count("\n") == 1


def test_usage_errors_exit_2(capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    assert verify(capsys, "--format", "xml", "--profile", str(DEFAULT))[0] == 2
    code, _, err = verify(capsys)
    assert code == 2 and "verify needs --dsn" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("profile: 1\nengine: {version: 9}\n", encoding="utf-8")
    code, _, err = verify(capsys, "--profile", str(bad))
    assert code == 2 and err.startswith(f"agentddl: {bad}:")


def test_without_a_dsn_the_profile_is_installed_and_verified(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    code, out, _ = verify(capsys, "--profile", str(DEFAULT))
    assert code == 0
    assert "database: embedded scratch database (the profile's schema.sql, just installed)" in out
    assert "server_version: 16" in out and out.rstrip().endswith("verify: no findings.")


def test_the_dsn_comes_from_the_environment_too(
    capsys: Any, monkeypatch: pytest.MonkeyPatch, installed_default: str
) -> None:
    monkeypatch.setenv("AGENTDDL_DSN", installed_default)
    code, out, _ = verify(capsys, "--profile", str(DEFAULT), "--format", "markdown")
    assert code == 0 and out.startswith("## agentddl verify\n") and "**verify: no findings.**" in out


def test_the_reference_goes_to_the_server_given(capsys: Any, installed_default: str) -> None:
    closed = "postgresql://nobody@127.0.0.1:1/postgres"
    code, out, err = verify(capsys, "--dsn", installed_default, "--profile", str(DEFAULT), "--server", closed)
    assert (code, out) == (2, "") and err.startswith("agentddl: cannot connect to PostgreSQL at 127.0.0.1:1/")
    code, _, err = verify(capsys, "--dsn", installed_default, "--pg-version", "15")
    assert code == 2
    assert err == "agentddl: --pg-version starts an embedded server: not with --server or --dsn\n"


def test_pg_version_names_the_embedded_server(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    code, out, _ = verify(capsys, "--profile", str(DEFAULT), "--pg-version", "18", "--format", "github")
    assert (code, out) == (0, "")  # no finding: no annotation
    code, out, _ = verify(capsys, "--profile", str(DEFAULT), "--pg-version", "18", "--format", "json")
    assert json.loads(out)["server_version"] == 18
