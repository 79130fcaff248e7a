"""`catalog.compare_with_model` (what `agentddl apply` checks): declared structure, not
names only, read back from a real server."""

from __future__ import annotations

import psycopg
from profiles import example_profiles, with_version

from agentddl.checks.db.catalog import compare_with_model, snapshot
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive

CHANGES = {
    # (statement, the problem it must cause)
    "reordered index keys": (
        "DROP INDEX agent.runs_parent_idx; CREATE INDEX runs_parent_idx ON agent.runs "
        "(parent_run_id, tenant_id) WHERE parent_run_id IS NOT NULL",
        "index runs.runs_parent_idx: differs from the model",
    ),
    "lost DESC": (
        "DROP INDEX agent.runs_claim_idx; CREATE INDEX runs_claim_idx ON agent.runs (priority, wake_at) "
        "WHERE status = 'queued'",
        "index runs.runs_claim_idx: differs from the model",
    ),
    "no longer partial": (
        "DROP INDEX agent.outbox_pending_idx; CREATE INDEX outbox_pending_idx ON agent.outbox (available_at)",
        "index outbox.outbox_pending_idx: differs from the model",
    ),
    "other ON DELETE": (
        "ALTER TABLE agent.outbox DROP CONSTRAINT outbox_run_fkey, ADD CONSTRAINT outbox_run_fkey "
        "FOREIGN KEY (tenant_id, run_id) REFERENCES agent.runs (tenant_id, run_id)",
        "constraint outbox.outbox_run_fkey: differs",
    ),
    "narrower unique key": (
        "DROP INDEX agent.runs_run_key_key; CREATE UNIQUE INDEX runs_run_key_key ON agent.runs "
        "(tenant_id, run_key) NULLS NOT DISTINCT WHERE run_key IS NOT NULL",
        "index runs.runs_run_key_key: differs from the model",
    ),
}


def test_structure_differences_are_reported(pg_server_latest: PostgresServer) -> None:
    model = derive(with_version(example_profiles()["default"], pg_server_latest.version))
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        install_schema(connection, model)
        assert compare_with_model(model, snapshot(dsn, "agent")) == []
        for statement, problem in CHANGES.values():
            connection.execute(statement.encode())
            problems = [str(p) for p in compare_with_model(model, snapshot(dsn, "agent"))]
            assert any(p.startswith(problem) for p in problems), (problem, problems)
