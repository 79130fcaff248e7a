"""The repo's own migrations/: `alembic upgrade head` / `downgrade base` from the repo root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
from profiles import ROOT

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
