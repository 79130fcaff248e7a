"""As a new user would: `alembic upgrade head` in the folder `generate --alembic` wrote,
and in an existing Alembic project whose history the first agentddl revision joins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.connect import connect

ALEMBIC = Path(sys.executable).parent / "alembic"
USER_REVISION = '''"""The application's own table."""
from alembic import op

revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE public.{table} (id bigint PRIMARY KEY)")


def downgrade() -> None:
    op.execute("DROP TABLE public.{table}")
'''


def alembic(folder: Path, dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTDDL_DSN": dsn}
    return subprocess.run(
        [str(ALEMBIC), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def tables(dsn: str) -> set[str]:
    with connect(dsn) as connection:
        rows = connection.execute(
            "SELECT schemaname || '.' || tablename FROM pg_tables WHERE schemaname IN ('agent', 'public')"
        ).fetchall()
    return {row[0] for row in rows}


def test_the_generated_folder_runs_with_plain_alembic(
    pg_server_latest: PostgresServer, tmp_path: Path
) -> None:
    profile = str(ROOT / "schemas/default.yaml")
    assert main(["generate", profile, "--out", str(tmp_path), "--alembic"]) == 0
    with pg_server_latest.scratch_database() as dsn:
        upgraded = alembic(tmp_path, dsn, "upgrade", "head")
        assert upgraded.returncode == 0, upgraded.stderr
        assert "agent.runs" in tables(dsn)
        assert "0001 (head)" in alembic(tmp_path, dsn, "current").stdout


def test_the_first_revision_joins_an_existing_projects_history(
    pg_server_latest: PostgresServer, tmp_path: Path
) -> None:
    versions = tmp_path / "versions"
    versions.mkdir()
    (versions / "a1b2c3_users.py").write_text(
        USER_REVISION.format(revision="a1b2c3", down=None, table="users")
    )
    (versions / "d4e5f6_orders.py").write_text(
        USER_REVISION.format(revision="d4e5f6", down="a1b2c3", table="orders")
    )
    profile = str(ROOT / "schemas/default.yaml")
    assert main(["generate", profile, "--out", str(tmp_path), "--alembic"]) == 0
    with pg_server_latest.scratch_database() as dsn:
        upgraded = alembic(tmp_path, dsn, "upgrade", "head")
        assert upgraded.returncode == 0, upgraded.stderr  # no "Multiple head revisions"
        assert {"public.users", "public.orders", "agent.runs"} <= tables(dsn)
        history = alembic(tmp_path, dsn, "history").stdout
        assert "d4e5f6 -> 0001 (head)" in history
