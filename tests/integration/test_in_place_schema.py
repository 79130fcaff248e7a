"""bench and prove in place (`--dsn`) on a database whose schema is not the profile's
(here: the schema's name with one table of its own): one line naming what is missing,
exit 2, before any work starts."""

from __future__ import annotations

import psycopg
import pytest
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer

PROFILE = str(ROOT / "schemas" / "default.yaml")


@pytest.mark.parametrize("command", ["bench", "prove"])
def test_a_schema_without_the_profiles_tables_is_refused_in_one_line(
    pg_server_latest: PostgresServer, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA agent; CREATE TABLE agent.runs (run_id uuid PRIMARY KEY)")
        code = main([command, "--profile", PROFILE, "--dsn", dsn])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "schema 'agent' lacks the profile's tenants, run_queue, attempts" in err
    assert f"{command} needs the profile's own tables" in err
