"""With distribution: citus, schema.sql stays plain PostgreSQL (it applies on a real server
with the queries' tenant-leading claim index), and citus.sql is the one part that needs the
extension: on plain PostgreSQL its first Citus call is an undefined function."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from profiles import PROFILE_FILES

from agentddl.checks.db import PostgresServer, connect
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.profile import load_profile_text

CITUS_READY = [p for p in PROFILE_FILES if p.stem not in {"single-tenant", "partman", "newest-engine"}]


@pytest.mark.parametrize("path", CITUS_READY, ids=lambda p: p.stem)
def test_schema_sql_applies_on_plain_postgresql_and_citus_sql_needs_the_extension(
    pg_server_latest: PostgresServer, path: Path
) -> None:
    profile = load_profile_text(path.read_text() + "distribution: {engine: citus}\n", str(path))
    files = render_artifacts(profile)
    assert "create_distributed_table" not in files["schema.sql"]
    with pg_server_latest.scratch_database() as dsn, connect(dsn, autocommit=True) as conn:
        conn.execute(files["schema.sql"].encode())
        index = conn.execute("SELECT pg_get_indexdef('agent.run_queue_visible_idx'::regclass)").fetchone()
        assert index is not None and "(tenant_id, priority DESC, visible_at)" in index[0]
        with (
            pytest.raises(psycopg.errors.UndefinedFunction, match="create_reference_table"),
            conn.transaction(),
        ):
            conn.execute(files["citus.sql"].encode())
