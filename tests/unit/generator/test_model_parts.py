"""The profile's model switches: each part brings its tables, columns, paths, queries
and PLAN.md text, tenant-scoped like the core tables, and nothing when it is off."""

from __future__ import annotations

import pytest
from profile_changes import DEFAULT, changed

from agentddl.generator.model import derive
from agentddl.generator.render.plan import render_plan
from agentddl.generator.render.queries import build_queries

PART_TABLES = {
    "nodes": {"node_executions", "tool_calls"},
    "approvals": {"approvals"},
    "sessions": set(),
    "details": set(),
    "notes": {"attempt_notes"},
}
PART_PATHS = {
    "nodes": {
        "start_node", "finish_node", "node_execution", "run_node_executions",
        "record_tool_call", "complete_tool_call", "node_tool_calls",
    },
    "approvals": {"request_approval", "decide_approval", "pending_approvals", "run_approvals"},
    "sessions": {"start_session_run", "session_runs"},
    "details": {"record_step", "describe_operation"},
    "notes": {"append_attempt_note", "run_attempt_notes"},
}  # fmt: skip
ALL_OFF = {f"model.{part}": False for part in PART_TABLES}
DETAIL_COLUMNS = {
    "runs": {"workflow_version", "current_step", "error", "started_at", "span_id"},
    "operations": {"action", "provider_reference", "trace_id", "span_id"},
}


@pytest.mark.parametrize("part", sorted(PART_TABLES))
def test_each_part_alone_brings_only_its_own_objects(part: str) -> None:
    model = derive(changed(DEFAULT, **{**ALL_OFF, f"model.{part}": True}))
    core = derive(changed(DEFAULT, **ALL_OFF))
    assert {t.name for t in model.tables} - {t.name for t in core.tables} == PART_TABLES[part]
    paths = {p.name for p in model.access_paths}
    assert paths - {p.name for p in core.access_paths} == PART_PATHS[part]
    assert {q.name for q in build_queries(model)} == paths
    session_columns = {"user_id", "session_id"} & {c.name for c in model.table("runs").columns}
    assert bool(session_columns) is (part == "sessions")
    for table, columns in DETAIL_COLUMNS.items():
        assert (columns <= {c.name for c in model.table(table).columns}) is (part == "details")
    assert f"`model.{part}`: on." in render_plan(model)


def test_every_part_is_tenant_scoped_and_goes_with_its_run() -> None:
    model = derive(DEFAULT)
    for table in (model.table(n) for n in ("node_executions", "tool_calls", "approvals", "attempt_notes")):
        assert table.primary_key[0] == "tenant_id" and table.tenant_owned
        assert all(fk.columns[0] == fk.ref_columns[0] == "tenant_id" for fk in table.foreign_keys)
        assert all(fk.on_delete == "CASCADE" for fk in table.foreign_keys)
    assert model.table("node_executions").primary_key == ("tenant_id", "run_id", "node_id", "attempt")
    notes = model.table("attempt_notes")
    assert notes.primary_key == ("tenant_id", "run_id", "attempt_no", "note_no")
    assert notes.foreign_keys[0].ref_table == "attempts"
    session = next(i for i in model.table("runs").indexes if i.name == "runs_session_idx")
    assert session.columns == ("tenant_id", "session_id", "created_at DESC")


def test_every_declared_path_names_an_index_of_its_table() -> None:
    model = derive(DEFAULT)
    for path in model.access_paths:
        if path.index is None:
            continue
        table = model.table(path.table)
        assert path.index in {i.name for i in table.indexes} | {table.pk_name}, path.name


def test_all_parts_off_leaves_the_core_and_says_so() -> None:
    model = derive(changed(DEFAULT, **ALL_OFF))
    assert [t.name for t in model.tables] == [
        "tenants", "runs", "run_queue", "attempts", "checkpoints", "events", "operations", "outbox",
    ]  # fmt: skip
    plan = render_plan(model)
    assert plan.count("off (no tables or columns for it)") == 5
    names = {q.name for q in build_queries(model)}
    assert "transition_run_with_event" in names and not names & set().union(*PART_PATHS.values())


def test_the_combined_paths_write_the_change_and_its_event_in_one_statement() -> None:
    queries = {q.name: q for q in build_queries(derive(DEFAULT))}
    for name, changed_table in (("transition_run_with_event", "runs"), ("decide_approval", "approvals")):
        sql = queries[name].sql
        assert f"UPDATE agent.{changed_table}" in sql and "INSERT INTO agent.events" in sql, name
        assert sql.count(";") == 0  # one statement
    lists = ("session_runs", "run_node_executions", "node_tool_calls", "pending_approvals", "run_approvals")
    for name in lists:
        selected = set(queries[name].sql.split("FROM")[0].replace(",", " ").replace(".", " ").split())
        assert not {"input", "output", "result", "request"} & selected, name


def test_the_detail_columns_are_nullable_and_never_indexed() -> None:
    model = derive(DEFAULT)
    for table, names in DETAIL_COLUMNS.items():
        columns = [c for c in model.table(table).columns if c.name in names]
        assert len(columns) == len(names) and all(c.nullable and c.default is None for c in columns)
        indexed = {word for i in model.table(table).indexes for col in i.columns for word in col.split()}
        indexed |= {word for i in model.table(table).indexes if i.where for word in i.where.split()}
        assert not names & indexed, table
    queries = {q.name: q.sql for q in build_queries(model)}
    assert "started_at = least(r.started_at, now())" in queries["claim_run"]
    assert "error = CAST(:error AS text)" in queries["fail_attempt"].split("UPDATE agent.runs")[1]
    assert "version" not in queries["record_step"].split("SET")[1].split("FROM")[0]
