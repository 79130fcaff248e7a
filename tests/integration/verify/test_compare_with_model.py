"""`db.declared.compare_with_model` (what `agentddl apply` checks of the schema.sql
install): declared structure, not names only, read back from a real server with the one
catalog snapshot."""

from __future__ import annotations

from typing import Any

import psycopg
from profiles import example_profiles, with_version

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.catalog import read_snapshot
from agentddl.checks.db.declared import compare_with_model
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive

CHANGES = {
    # (statement, the difference it must cause: kind, name, what)
    "reordered index keys": (
        "DROP INDEX agent.runs_parent_idx; CREATE INDEX runs_parent_idx ON agent.runs "
        "(parent_run_id, tenant_id) WHERE parent_run_id IS NOT NULL",
        ("indexes", "runs_parent_idx", "differs"),
    ),
    "lost DESC": (
        "DROP INDEX agent.run_queue_visible_idx; CREATE INDEX run_queue_visible_idx ON agent.run_queue "
        "(priority, visible_at)",
        ("indexes", "run_queue_visible_idx", "differs"),
    ),
    "no longer partial": (
        "DROP INDEX agent.outbox_pending_idx; CREATE INDEX outbox_pending_idx ON agent.outbox (available_at)",
        ("indexes", "outbox_pending_idx", "differs"),
    ),
    "other ON DELETE": (
        "ALTER TABLE agent.outbox DROP CONSTRAINT outbox_run_fkey, ADD CONSTRAINT outbox_run_fkey "
        "FOREIGN KEY (tenant_id, run_id) REFERENCES agent.runs (tenant_id, run_id)",
        ("constraints", "outbox_run_fkey", "differs"),
    ),
    "narrower unique key": (
        "DROP INDEX agent.runs_run_key_key; CREATE UNIQUE INDEX runs_run_key_key ON agent.runs "
        "(tenant_id, run_key) NULLS NOT DISTINCT WHERE run_key IS NOT NULL",
        ("indexes", "runs_run_key_key", "differs"),
    ),
    "a constraint left NOT VALID": (
        "ALTER TABLE agent.outbox DROP CONSTRAINT outbox_topic_check, ADD CONSTRAINT outbox_topic_check "
        "CHECK (char_length(topic) BETWEEN 1 AND 200) NOT VALID",
        ("constraints", "outbox_topic_check", "validity"),
    ),
    "a NOT NULL dropped": (
        "ALTER TABLE agent.outbox ALTER COLUMN topic DROP NOT NULL",
        ("columns", "outbox.topic", "differs"),
    ),
    "a dropped index": ("DROP INDEX agent.runs_finished_idx", ("indexes", "runs_finished_idx", "missing")),
    "a dropped table": ("DROP TABLE agent.outbox", ("tables", "outbox", "missing")),
}


def snapshot(connection: psycopg.Connection[Any]) -> Any:
    return read_snapshot(connection, "agent")


def test_structure_differences_are_reported(pg_server_latest: PostgresServer) -> None:
    model = derive(with_version(example_profiles()["default"], pg_server_latest.version))
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        install_schema(connection, model)
        assert compare_with_model(model, snapshot(connection)) == []
        for statement, problem in CHANGES.values():
            connection.execute(statement.encode())
            problems = [(p.kind, p.name, p.what) for p in compare_with_model(model, snapshot(connection))]
            assert problem in problems, (problem, problems)
        # a missing table is one difference, not one per column, constraint and index
        assert [p for p in problems if p[1].startswith("outbox")] == [("tables", "outbox", "missing")]
