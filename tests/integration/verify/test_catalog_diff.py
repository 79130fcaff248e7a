"""The one catalog snapshot and diff (`db.catalog`) on real PostgreSQL: two installs of
a profile compare equal, and each kind of change shows as one difference of its kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from profiles import example_profiles, with_version

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.catalog import Snapshot, diff, read_snapshot
from agentddl.checks.db.declared import model_roles
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import SchemaModel, derive

LAST_EVENTS_PARTITION = """
    SELECT max(inhrelid::regclass::text) FROM pg_inherits WHERE inhparent = 'agent.events'::regclass
"""
CHANGES = {
    # statement -> a difference it must cause: (kind, name, what)
    "COMMENT ON TABLE agent.runs IS 'runs'": ("comments", "runs", "differs"),
    "COMMENT ON INDEX agent.run_queue_visible_idx IS 'claims'": (
        "comments",
        "run_queue_visible_idx",
        "unexpected",
    ),
    "ALTER TABLE agent.runs ALTER COLUMN kind SET STORAGE MAIN": ("column_storage", "runs.kind", "differs"),
    "ALTER TABLE agent.outbox SET (fillfactor = 50)": ("tables", "outbox", "differs"),
    "CREATE VIEW agent.queued AS SELECT run_id FROM agent.runs": ("views", "queued", "unexpected"),
    "ALTER SEQUENCE agent.events_event_id_seq CACHE 20": ("sequences", "events_event_id_seq", "differs"),
    "GRANT UPDATE ON agent.events TO agent_app": ("privileges", "agent_app on events", "differs"),
    "ALTER TABLE agent.outbox DROP CONSTRAINT outbox_topic_check, ADD CONSTRAINT outbox_topic_check "
    "CHECK (char_length(topic) BETWEEN 1 AND 200) NOT VALID": (
        "constraints", "outbox_topic_check", "validity"
    ),
    "DROP INDEX agent.runs_finished_idx": ("indexes", "runs_finished_idx", "missing"),
}


@pytest.fixture(scope="module")
def installs(pg_server_latest: PostgresServer) -> Iterator[tuple[SchemaModel, Any, Any]]:
    """The default profile installed twice: (model, first connection, second connection)."""
    model = derive(with_version(example_profiles()["default"], pg_server_latest.version))
    with (
        pg_server_latest.scratch_database() as one,
        pg_server_latest.scratch_database() as two,
        psycopg.connect(one, autocommit=True) as first,
        psycopg.connect(two, autocommit=True) as second,
    ):
        install_schema(first, model)
        install_schema(second, model)
        yield model, first, second


def snapshot(model: SchemaModel, connection: psycopg.Connection[Any]) -> Snapshot:
    return read_snapshot(connection, model.schema, model_roles(model))


def test_two_installs_compare_equal_and_hold_every_kind(installs: tuple[SchemaModel, Any, Any]) -> None:
    model, first, second = installs
    expected = snapshot(model, first)
    assert diff(expected, snapshot(model, second)) == []
    kinds = ("tables", "partitions", "columns", "column_storage", "indexes", "constraints", "sequences",
             "triggers", "functions")
    assert all(expected.objects[kind] for kind in kinds), [k for k in kinds if not expected.objects[k]]
    assert expected.privileges[("agent_app", "events")] == frozenset({"INSERT", "SELECT"})


@pytest.mark.parametrize("statement", list(CHANGES))
def test_a_change_is_one_difference_of_its_kind(
    installs: tuple[SchemaModel, Any, Any], statement: str
) -> None:
    model, first, second = installs
    expected = snapshot(model, first)
    with second.transaction(force_rollback=True):
        second.execute(statement.encode())
        found = diff(expected, snapshot(model, second))
    assert [(d.kind, d.name, d.what) for d in found] == [CHANGES[statement]], [str(d) for d in found]


def test_a_dropped_partition_and_a_renamed_schema(installs: tuple[SchemaModel, Any, Any]) -> None:
    model, first, second = installs
    expected = snapshot(model, first)
    with second.transaction(force_rollback=True):
        partition = second.execute(LAST_EVENTS_PARTITION).fetchone()[0]
        second.execute(f"DROP TABLE {partition}".encode())
        found = [(d.kind, d.what) for d in diff(expected, snapshot(model, second))]
    assert found == [("partitions", "missing")]
    with second.transaction(force_rollback=True):  # definitions print unqualified: names match
        second.execute("ALTER SCHEMA agent RENAME TO agent_live")
        renamed = read_snapshot(second, "agent_live", model_roles(model))
        kinds = {d.kind for d in diff(expected, renamed)}
    assert kinds == {"functions"}  # bodies are text: they still name the old schema
