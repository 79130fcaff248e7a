"""The repo's own migrations/: `alembic upgrade head` / `downgrade base` from the repo root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from profiles import ROOT
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from agentddl.checks.db import PostgresServer

ALEMBIC = Path(sys.executable).parent / "alembic"


def alembic(dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTDDL_DSN": dsn}
    return subprocess.run(
        [str(ALEMBIC), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def schema_exists(dsn: str) -> bool:
    with psycopg.connect(dsn) as connection:
        row = connection.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'agent'").fetchone()
    return row == (1,)


def test_alembic_upgrade_and_downgrade_from_the_repo_root(pg_server_latest: PostgresServer) -> None:
    with pg_server_latest.scratch_database() as dsn:
        upgraded = alembic(dsn, "upgrade", "head")
        assert upgraded.returncode == 0, upgraded.stderr
        assert schema_exists(dsn)
        assert "0001 (head)" in alembic(dsn, "current").stdout
        downgraded = alembic(dsn, "downgrade", "base")
        assert downgraded.returncode == 0, downgraded.stderr
        assert not schema_exists(dsn)


def test_alembic_without_a_database_says_what_to_set() -> None:
    env = {k: v for k, v in os.environ.items() if k != "AGENTDDL_DSN"}
    result = subprocess.run(
        [str(ALEMBIC), "upgrade", "head"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "set AGENTDDL_DSN" in result.stderr


def test_a_server_that_does_not_answer_is_one_line() -> None:
    result = alembic("postgresql://nobody:s3cret@127.0.0.1:1/app", "upgrade", "head")
    output = result.stdout + result.stderr  # Alembic prints its FAILED line on stdout
    assert result.returncode != 0 and "Traceback" not in output and "s3cret" not in output
    assert output.startswith("FAILED: migrating 127.0.0.1:1/app: connection failed")
    assert output.count("\n") == 1


def test_a_revision_the_server_refuses_is_one_line(pg_servers: Any) -> None:
    # the repo's revision is rendered for PostgreSQL 16: 14 has no UNIQUE NULLS NOT DISTINCT
    server = pg_servers.get(14)
    with server.scratch_database() as dsn:
        result = alembic(dsn, "upgrade", "head")
        assert not schema_exists(dsn)  # the revision's transaction rolled back
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in output and output.count("\n") == 1
    assert output.startswith("FAILED: migrating 127.0.0.1:") and 'syntax error at or near "NULLS"' in output


def test_a_key_value_dsn_works_like_a_uri(pg_server_latest: PostgresServer) -> None:
    with pg_server_latest.scratch_database() as dsn:
        params = conninfo_to_dict(dsn)
        upgraded = alembic(make_conninfo("", **params), "upgrade", "head")
        assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
        assert schema_exists(dsn)
    assert alembic("not a dsn", "upgrade", "head").stdout.startswith("FAILED: not a PostgreSQL DSN: ")
