"""Drift a database by hand, then `diff --dsn` names the steps that repair it and
`generate --dsn` writes them as a revision: after `alembic upgrade head` the catalog is
a fresh install's again, and `diff --dsn` finds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.catalog import KINDS, diff, read_snapshot
from agentddl.checks.db.connect import connect
from agentddl.checks.db.declared import model_roles
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile

PROFILE = ROOT / "schemas/default.yaml"
DRIFT = """
DROP INDEX agent.outbox_run_idx;
CREATE INDEX runs_kind_idx ON agent.runs (kind);
ALTER TABLE agent.runs DROP CONSTRAINT runs_kind_check;
ALTER TABLE agent.runs ALTER COLUMN priority SET DEFAULT 5;
ALTER TABLE agent.runs SET (fillfactor = 100);
CREATE OR REPLACE FUNCTION agent.forbid_update() RETURNS trigger LANGUAGE plpgsql
AS $$ BEGIN RETURN NEW; END $$;
REVOKE INSERT ON agent.events FROM agent_app;
GRANT DELETE ON agent.events TO agent_app;
COMMENT ON TABLE agent.outbox IS 'edited by hand';
"""


def diff_steps(dsn: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["diff", "--dsn", dsn, str(PROFILE), "--format", "json"]) == 0
    return list(json.loads(capsys.readouterr().out)["steps"])


def test_drift_is_repaired_by_a_generated_revision(
    pg_server_latest: PostgresServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = derive(load_profile(PROFILE))
    assert main(["generate", str(PROFILE), "--out", str(tmp_path), "--alembic"]) == 0
    with pg_server_latest.scratch_database() as dsn, pg_server_latest.scratch_database() as fresh:
        config = Config(str(tmp_path / "alembic.ini"))
        config.attributes["dsn"] = dsn
        command.upgrade(config, "head")
        with connect(dsn) as connection:
            connection.execute(DRIFT)
        steps = diff_steps(dsn, capsys)
        summaries = " | ".join(str(s["summary"]) for s in steps)
        for repair in (
            "outbox_run_idx",
            "runs_kind_check",
            "runs.priority",
            "forbid_update",
            "drop index runs_kind_idx",
        ):
            assert repair in summaries
        assert any("REVOKE DELETE ON agent.events FROM agent_app" in s["statements"] for s in steps)  # type: ignore[operator]
        assert main(["generate", str(PROFILE), "--out", str(tmp_path), "--dsn", dsn]) == 0
        assert (tmp_path / "versions/0002_agentddl_live.py").is_file()
        command.upgrade(config, "head")
        assert diff_steps(dsn, capsys) == []
        with connect(fresh) as connection:
            install_schema(connection, model)
        with connect(dsn) as a, connect(fresh) as b:
            repaired = read_snapshot(a, "agent", model_roles(model))
            expected = read_snapshot(b, "agent", model_roles(model))
        assert [str(d) for d in diff(expected, repaired, [k for k in KINDS if k != "partitions"])] == []
