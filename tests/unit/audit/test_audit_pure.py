"""The audit's pure parts: query files (errors at file:line:column), index shapes from
SQL, version-aware plan reading, judging, baselines, reports, the rules' catalogue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentddl.checks.audit.baseline import compare
from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath, model_paths
from agentddl.checks.audit.plan import Catalog, summarize
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.checks.audit.report import build_report
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.rules.seq_scan_on_large_table import SeqScanOnLargeTable
from agentddl.checks.audit.shape import index_shape, index_shapes
from agentddl.checks.audit.suggest import suggest
from agentddl.checks.core.report import render
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile

ROOT = Path(__file__).resolve().parents[3]
MODEL = derive(load_profile(ROOT / "schemas" / "default.yaml"))


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "q.sql"
    path.write_text(text)
    return path


def test_query_file_paths_carry_examples_and_declared_index(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "-- name: one(tenant_id)\n-- index: runs_pkey\n"
        "-- example: tenant_id = @hot_tenant\nSELECT 1 FROM agent.runs WHERE tenant_id = :tenant_id;\n",
    )
    (only,) = load_query_file(path)
    assert (only.name, only.declared, only.table, only.params) == ("one", "runs_pkey", "runs", ("tenant_id",))
    assert only.example_exprs == {"tenant_id": "@hot_tenant"}
    assert only.origin == f"{path}:1" and "%(tenant_id)s" in only.sql


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "-- name: q(k)\nSELECT 1 FROM agent.runs WHERE kind = :j;\n",
            "1:1: query 'q' uses :j, which its parameter list (k) does not declare",
        ),
        # aiosql's own refusals, in our words at the block's position
        ("-- name: q(k\nSELECT 1;\n", "1:10: expected '-- name: NAME' or '-- name: NAME(PARAM, ...)'"),
        ("-- name: q(k l)\nSELECT 1;\n", "1:12: query 'q': expected parameters NAME, NAME"),
        ("-- name: q\nSELECT 1;\n-- name: q\nSELECT 2;\n", "3:10: a second query named 'q'"),
        ("-- name: q(k)\n-- example: k 'x'\nSELECT :k;\n", "2:13: expected '-- example: PARAM = VALUE'"),
        ("-- name: q(k)\n-- example: k = @nobody\nSELECT :k;\n", "2:17: unknown sample '@nobody'"),
        ("-- name: q(k)\n-- example: k = 1; DROP TABLE x\nSELECT :k;\n", "2:17: example value"),
        ("-- name: q(k)\n-- example: k = (SELECT\nSELECT :k;\n", "2:"),
        (
            "-- name: q(k)\n-- example: k = 1\n-- example: j = 2\nSELECT :k;\n",
            "3:13: query 'q' has no parameter 'j'",
        ),
        ("-- example: k = 1\n-- name: q(k)\nSELECT :k;\n", "1:1: '-- example:' before any"),
        ("SELECT 1;\n", "1:1: no '-- name:' query blocks"),
        # the audit runs each block under EXPLAIN ANALYZE and rolls it back: one
        # statement that can be rolled back, its syntax errors at their column
        ("-- name: q(k)\n-- example: k = 1\nSELECT 1\nWHER kind = :k;\n", "4:6: query 'q': syntax error"),
        ("-- name: q()\nSELECT 1; COMMIT; DROP TABLE agent.runs;\n", "2:11: query 'q': one statement per"),
        ("-- name: q()\n-- a comment\n  CREATE INDEX ON agent.runs (kind);\n", "3:3: query 'q' is IndexStmt"),
        ("-- name: q()\nSELECT * INTO agent.copy FROM agent.runs;\n", "2:1: query 'q' is SelectStmt"),
        ("-- name: q()\n-- only a comment\n-- name: r()\nSELECT 1;\n", "1:1: query 'q' has no SQL"),
        ("-- name: q(k)\n-- example: k = 1 2\nSELECT :k;\n", "2:19: example value is not"),
        ("-- name: q()\nSELECT 1 \x00; DROP TABLE agent.runs;\n", "2:10: query 'q' contains a NUL byte"),
    ],
)
def test_query_file_mistakes_name_file_line_column(tmp_path: Path, text: str, where: str) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(AgentDDLError) as caught:
        load_query_file(path)
    assert str(caught.value).startswith(f"{path}:{where}") or f"{path}:{where}" in str(caught.value)


def test_index_shape_for_queue_and_append_log_shapes() -> None:
    claim = (
        "SELECT r.run_id FROM agent.runs AS r WHERE r.status = 'queued' AND r.wake_at <= now() "
        "ORDER BY r.priority DESC, r.wake_at LIMIT 1"
    )
    shape = index_shape(claim, "runs")
    assert shape is not None and shape.key == ["priority DESC", "wake_at"]
    assert shape.partial == ["status = 'queued'"]
    relay = (
        "SELECT m.id FROM agent.outbox AS m WHERE m.delivered_at IS NULL AND m.available_at <= now() "
        "ORDER BY m.available_at LIMIT %(n)s"
    )
    shape = index_shape(relay, "outbox")
    assert shape is not None and shape.key == ["available_at"] and shape.partial == ["delivered_at IS NULL"]
    log = (
        "SELECT e.seq FROM agent.events AS e WHERE e.tenant_id = %(t)s AND e.run_id = %(r)s "
        "AND e.seq > %(after)s ORDER BY e.seq LIMIT 100"
    )
    shape = index_shape(log, "events")
    assert shape is not None and shape.key == ["tenant_id", "run_id", "seq"] and not shape.partial
    window = "SELECT 1 FROM agent.events AS e WHERE e.tenant_id = %(t)s AND e.created_at >= %(a)s"
    assert index_shape(window, "events").key == ["tenant_id", "created_at"]  # type: ignore[union-attr]
    assert index_shape(window, "runs") is None


@pytest.mark.parametrize(
    ("where", "key", "partial"),
    [
        # equality first, whatever order the query writes it in; the range last
        (
            "r.created_at >= %(a)s AND r.kind = %(k)s AND r.tenant_id = %(t)s",
            ["kind", "tenant_id", "created_at"],
            [],
        ),
        ("%(t)s = r.tenant_id AND now() > r.wake_at", ["tenant_id", "wake_at"], []),  # commuted
        ("r.tenant_id = %(t)s AND r.kind IN (%(a)s, %(b)s)", ["tenant_id", "kind"], []),
        ("r.tenant_id = %(t)s AND r.kind IN ('a', 'b')", ["tenant_id"], ["kind IN ('a', 'b')"]),
        ("lower(r.trace_id) = %(x)s", ["(lower(trace_id))"], []),
        ("r.trace_id LIKE %(p)s", ["trace_id text_pattern_ops"], []),
        ("r.trace_id LIKE 'ab%%'", ["trace_id text_pattern_ops"], []),
        ("r.tenant_id = %(t)s AND r.trace_id LIKE '%%ab'", ["tenant_id"], []),  # no prefix: no range
        ("r.tenant_id = %(t)s AND r.finished_at IS NULL", ["tenant_id"], ["finished_at IS NULL"]),
    ],
)
def test_index_shape_keys_equality_then_range(where: str, key: list[str], partial: list[str]) -> None:
    shape = index_shape(f"SELECT 1 FROM agent.runs AS r WHERE {where}", "runs")
    assert shape is not None and (shape.key, shape.partial) == (key, partial)


@pytest.mark.parametrize(
    ("order", "key"),
    [
        ("r.finished_at DESC", ["kind", "finished_at DESC"]),
        # a DESC index is NULLS FIRST: it can't return DESC NULLS LAST in order
        ("r.finished_at DESC NULLS LAST", ["kind", "finished_at DESC NULLS LAST"]),
        ("r.finished_at DESC NULLS FIRST", ["kind", "finished_at DESC"]),
        ("r.finished_at NULLS FIRST", ["kind", "finished_at NULLS FIRST"]),
        ("r.priority DESC, r.wake_at", ["kind", "priority DESC", "wake_at"]),
    ],
)
def test_index_shape_keeps_order_direction_and_nulls(order: str, key: list[str]) -> None:
    shape = index_shape(
        f"SELECT 1 FROM agent.runs AS r WHERE r.kind = %(k)s ORDER BY {order} LIMIT 10", "runs"
    )
    assert shape is not None and shape.key == key


def test_index_shape_reads_inner_join_conditions_not_the_preserved_side() -> None:
    join = (
        "SELECT 1 FROM agent.runs AS r JOIN agent.events AS e ON e.tenant_id = r.tenant_id "
        "AND e.run_id = r.run_id WHERE r.tenant_id = %(t)s AND e.kind = %(k)s"
    )
    assert index_shape(join, "events").key == ["tenant_id", "run_id", "kind"]  # type: ignore[union-attr]
    left = "SELECT 1 FROM agent.runs AS r LEFT JOIN agent.events AS e ON e.run_id = r.run_id AND r.kind = 'x'"
    assert index_shape(left, "events").key == ["run_id"]  # type: ignore[union-attr]
    assert index_shape(left, "runs") is None  # ON does not filter the preserved side


def _catalog(version_rows: float = 100_000.0) -> Catalog:
    return Catalog(
        schema="agent",
        rows={"runs": version_rows, "runs_pkey": version_rows},
        parent={},
        partitions={},
        partition_key={},
        index_table={"runs_pkey": "runs"},
        index_columns={"runs_pkey": ("tenant_id", "run_id")},
        unique=frozenset({"runs_pkey"}),
        constraint_indexes=frozenset({"runs_pkey"}),
    )


def _index_scan(cond: str) -> dict[str, Any]:
    return {
        "Plan": {
            "Node Type": "Index Scan",
            "Relation Name": "runs",
            "Index Name": "runs_pkey",
            "Index Cond": cond,
            "Plan Rows": 1,
            "Total Cost": 50.0,
            "Actual Loops": 1,
        }
    }


def _path(name: str = "p", declared: str | None = "runs_pkey", sql: str = "SELECT 1") -> AuditPath:
    return AuditPath(name, sql, (), "runs", declared, "read", "test")


@pytest.mark.parametrize(
    ("version", "codes", "node"),
    [
        (18, {"ADA106"}, "Index Scan using runs_pkey (skip scan) on runs"),
        (17, {"ADA109"}, "Index Scan using runs_pkey on runs"),
    ],
)
def test_a_free_leading_column_reads_as_skip_scan_on_18_and_full_index_before(
    version: int, codes: set[str], node: str
) -> None:
    plan = summarize(_index_scan("(run_id = '9c2b'::uuid)"), _catalog(), version)
    assert plan.main_node("runs") == node
    assert {f.code for f in judge(_path(), plan, _catalog(), Thresholds())} == codes
    selective = summarize(
        _index_scan("((tenant_id = 'a'::uuid) AND (run_id = 'b'::uuid))"), _catalog(), version
    )
    assert judge(_path(), selective, _catalog(), Thresholds()) == []


def test_seq_scans_are_judged_by_table_size_and_selectivity() -> None:
    def seq(rows: float) -> dict[str, Any]:
        return {
            "Plan": {"Node Type": "Seq Scan", "Relation Name": "runs", "Plan Rows": rows, "Total Cost": 900.0}
        }

    def codes(rows: float, size: float = 100_000.0, declared: str | None = None) -> list[str]:
        catalog = _catalog(size)
        return [
            f.code
            for f in judge(_path(declared=declared), summarize(seq(rows), catalog, 16), catalog, Thresholds())
        ]

    assert codes(5) == ["ADA101"]
    # half the table: a sequential scan is the right plan (no ADA101), yet the path reads
    # the table whole (ADA117)
    assert codes(50_000) == ["ADA117"]
    assert codes(5, size=500) == []  # a small table
    assert codes(50_000, declared="runs_gone_idx") == ["ADA105", "ADA117"]


def test_sorts_of_large_inputs_are_findings_unless_presorted() -> None:
    def sort(kind: str) -> dict[str, Any]:
        scan = {
            "Node Type": "Index Scan",
            "Relation Name": "runs",
            "Index Name": "runs_pkey",
            "Index Cond": "(tenant_id = 'a'::uuid)",
            "Plan Rows": 20_000,
            "Total Cost": 10.0,
        }
        return {
            "Plan": {
                "Node Type": kind,
                "Sort Key": ["created_at DESC"],
                "Plan Rows": 20_000,
                "Total Cost": 99.0,
                "Plans": [scan],
            }
        }

    def codes(kind: str) -> set[str]:
        return {
            f.code for f in judge(_path(), summarize(sort(kind), _catalog(), 16), _catalog(), Thresholds())
        }

    assert codes("Sort") == {"ADA102"}
    assert codes("Incremental Sort") == set()


def _result(cost: float, index: str | None, rows: float = 100_000.0) -> AuditResult:
    by_index = {"Index Name": index, "Index Cond": "(tenant_id = 'a')"} if index else {}
    node = "Index Scan" if index else "Seq Scan"
    plan = {
        "Plan": {"Node Type": node, "Relation Name": "runs", "Plan Rows": 1, "Total Cost": cost, **by_index}
    }
    summary = summarize(plan, _catalog(rows), 16)
    return AuditResult(16, (PathResult(_path("get"), summary),))


def test_baseline_catches_lost_index_and_cost_growth() -> None:
    baseline = {
        "baseline": 1,
        "paths": {
            "get": {"node": "Index Scan using runs_pkey on runs", "indexes": ["runs_pkey"], "cost": 8.0}
        },
    }
    assert compare(_result(8.0, "runs_pkey"), baseline) == []
    assert [f.code for f in compare(_result(900.0, None), baseline)] == ["ADA120", "ADA121"]
    assert [f.code for f in compare(_result(17.0, "runs_pkey"), baseline, growth=2.0)] == ["ADA121"]
    # a small table read whole (at a small --rows the planner flips plans): no regression
    assert compare(_result(900.0, None, rows=500.0), baseline) == []


def _rendered(result: AuditResult, fmt: str) -> str:
    import io

    out = io.StringIO()
    render(build_report(result), fmt, out)
    return out.getvalue()


def test_markdown_headline_and_folded_passing_paths() -> None:
    text = _rendered(_result(8.0, "runs_pkey"), "markdown")
    assert text.startswith("## agentddl audit\n\nPostgreSQL 16: ✅ every access path is served")
    assert "<details><summary>1 passing paths</summary>" in text


def test_every_declared_index_has_a_path_expecting_it() -> None:
    """What makes 'drop any declared index -> a named path fails' possible."""
    declared = {p.declared for p in model_paths(MODEL)}
    assert {i.name for i in MODEL.indexes} <= declared


def test_text_json_and_sarif_reports() -> None:
    import json

    from agentddl.checks.audit.rules import all_rules

    base = _result(900.0, None).paths[0]  # a sequential scan of a 100,000-row table: fails
    assert base.plan is not None
    judged = PathResult(base.path, base.plan, tuple(judge(base.path, base.plan, _catalog(), Thresholds())))
    result = AuditResult(16, (judged,))
    text = _rendered(result, "text")
    assert "access paths on PostgreSQL 16" in text and "FAIL" in text
    doc = json.loads(_rendered(result, "json"))
    assert doc["passed"] is False and doc["paths"][0]["node"] == "Seq Scan on runs"
    run = json.loads(_rendered(result, "sarif"))["runs"][0]
    assert len(run["tool"]["driver"]["rules"]) >= len(all_rules())
    assert [r["ruleId"] for r in run["results"]] == ["ADA101", "ADA104"]  # errors first
    assert run["results"][0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "get"


def test_no_suggestion_without_a_plan_or_for_an_index_that_exists() -> None:
    """A path that could not be planned, or whose query asks for the primary key's own
    columns, gets no CREATE INDEX (it would duplicate runs_pkey)."""
    planner = Planner(MODEL, 16, Thresholds(), {})
    by_key = "SELECT 1 FROM agent.runs AS r WHERE r.tenant_id = %(t)s AND r.run_id = %(r)s"
    seq = {"Plan": {"Node Type": "Seq Scan", "Relation Name": "runs", "Plan Rows": 1, "Total Cost": 900.0}}
    failing = (SeqScanOnLargeTable.finding("p reads agent.runs", "", object="p"),)
    catalog = _catalog()
    planned = PathResult(_path(sql=by_key), summarize(seq, catalog, 16), failing)
    assert suggest(None, planner, planned, catalog, hypopg=False) is None  # type: ignore[arg-type]
    unplanned = PathResult(_path(sql=by_key.replace("run_id", "kind")), None, failing)
    assert suggest(None, planner, unplanned, catalog, hypopg=False) is None  # type: ignore[arg-type]
    other = PathResult(_path(sql=by_key.replace("run_id", "kind")), summarize(seq, catalog, 16), failing)
    found = suggest(None, planner, other, catalog, hypopg=False)  # type: ignore[arg-type]
    assert found is not None and found.ddl == "CREATE INDEX CONCURRENTLY ON agent.runs (tenant_id, kind)"


def test_a_used_suggestion_that_leaves_the_plan_failing_says_so() -> None:
    from agentddl.checks.audit.report import verdict
    from agentddl.checks.audit.suggest import Suggestion

    left = "p sorts ~3,019 rows of runs by finished_at DESC NULLS LAST"
    s = Suggestion(
        "p", "runs", "CREATE INDEX ...", "why", False, 883.0, 831.4, "Bitmap Heap Scan on runs", left
    )
    assert verdict(s).startswith(
        "hypopg: the planner uses it (Bitmap Heap Scan on runs), but the plan still fails"
    )


@pytest.mark.parametrize(
    ("where", "compares"),
    [
        ("e.run_created_at >= %(a)s", True),
        ("%(a)s <= e.run_created_at", True),
        # a cast or a function defeats pruning: still a comparison of the key (ADA103)
        ("e.run_created_at::date >= current_date - 1", True),
        ("date_trunc('day', e.run_created_at) = %(d)s", True),
        ("e.run_created_at :: timestamp without time zone > %(a)s", True),
        ("e.seq > 1 ORDER BY e.run_created_at", False),
    ],
)
def test_a_partition_key_comparison_is_seen_through_casts_and_functions(where: str, compares: bool) -> None:
    from agentddl.checks.audit.rules.no_partition_pruning import compares as compares_key

    assert (
        compares_key(f"SELECT e.run_created_at FROM agent.events AS e WHERE {where}", "run_created_at")
        is compares
    )


def test_each_query_level_is_its_own_shape() -> None:
    """claim_run's shape: the CTE that picks a queued run, then the UPDATE by key; merged
    they made (tenant_id, run_id, priority DESC, wake_at) WHERE status = 'queued' AND
    status = 'queued'. The suggestion skips the level the primary key already serves."""
    claim = (
        "WITH c AS (SELECT r.tenant_id, r.run_id FROM agent.runs AS r WHERE r.status = 'queued' "
        "AND r.wake_at <= now() ORDER BY r.priority DESC, r.wake_at LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "UPDATE agent.runs AS r SET status = 'running' FROM c "
        "WHERE r.tenant_id = c.tenant_id AND r.run_id = c.run_id AND r.status = 'queued'"
    )
    shapes = index_shapes(claim, "runs")
    assert [(s.key, s.partial) for s in shapes] == [
        (["tenant_id", "run_id"], ["status = 'queued'"]),
        (["priority DESC", "wake_at"], ["status = 'queued'"]),
    ]
    seq = {"Plan": {"Node Type": "Seq Scan", "Relation Name": "runs", "Plan Rows": 1, "Total Cost": 900.0}}
    failing = (SeqScanOnLargeTable.finding("p reads agent.runs", "", object="p"),)
    result = PathResult(_path(sql=claim), summarize(seq, _catalog(), 16), failing)
    found = suggest(None, Planner(MODEL, 16, Thresholds(), {}), result, _catalog(), hypopg=False)  # type: ignore[arg-type]
    assert found is not None
    assert (
        found.ddl
        == "CREATE INDEX CONCURRENTLY ON agent.runs (priority DESC, wake_at) WHERE status = 'queued'"
    )


def test_a_user_querys_table_is_the_first_relation_not_a_from_inside_extract(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "-- name: lag()\nSELECT extract(epoch FROM now() - min(m.available_at))\n"
        "FROM agent.outbox AS m WHERE m.delivered_at IS NULL;\n",
    )
    assert load_query_file(path)[0].table == "outbox"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"baseline": 1, "paths": {"x": "\xff"}}', "not UTF-8 text"),
        (b'{"baseline": 1, "paths": {"claim_run": {"cost": "high"}}}', "path 'claim_run': expected"),
        (b'{"baseline": 1, "paths": {"claim_run": {"indexes": "runs_pkey"}}}', "path 'claim_run': expected"),
        (b'{"baseline": 1, "paths": {"claim_run": 7}}', "path 'claim_run': expected"),
    ],
)
def test_a_baseline_that_compare_could_not_read_is_refused(tmp_path: Path, data: bytes, message: str) -> None:
    from agentddl.checks.audit.baseline import read_baseline

    path = tmp_path / "baseline.json"
    path.write_bytes(data)
    with pytest.raises(AgentDDLError, match=message):
        read_baseline(path)


def test_a_query_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "q.sql"
    path.write_bytes(b"-- name: q()\nSELECT '\xff';\n")
    with pytest.raises(AgentDDLError, match=r"q\.sql: not UTF-8 text \(byte 21\)"):
        load_query_file(path)


def test_an_or_of_columns_is_one_index_per_arm() -> None:
    """No single key serves `trace_id = $1 OR run_key = $2`; one index per arm does (a
    BitmapOr), each with the AND's other terms; an arm an index already serves is left out."""
    query = (
        "SELECT 1 FROM agent.runs AS r WHERE r.tenant_id = %(t)s AND r.status = 'failed' "
        "AND (r.trace_id = %(x)s OR r.run_id = %(k)s)"
    )
    (shape,) = index_shapes(query, "runs")
    assert [(a.key, a.partial) for a in shape.arms] == [
        (["tenant_id", "trace_id"], ["status = 'failed'"]),
        (["tenant_id", "run_id"], ["status = 'failed'"]),
    ]
    seq = {"Plan": {"Node Type": "Seq Scan", "Relation Name": "runs", "Plan Rows": 1, "Total Cost": 900.0}}
    failing = (SeqScanOnLargeTable.finding("p reads agent.runs", "", object="p"),)
    result = PathResult(_path(sql=query), summarize(seq, _catalog(), 16), failing)
    found = suggest(None, Planner(MODEL, 16, Thresholds(), {}), result, _catalog(), hypopg=False)  # type: ignore[arg-type]
    assert found is not None  # runs_pkey serves the (tenant_id, run_id) arm
    assert (
        found.ddl == "CREATE INDEX CONCURRENTLY ON agent.runs (tenant_id, trace_id) WHERE status = 'failed'"
    )
    bare = index_shape("SELECT 1 FROM agent.runs AS r WHERE r.trace_id = %(x)s OR r.run_key = %(k)s", "runs")
    assert bare is not None and [a.key for a in bare.arms] == [["trace_id"], ["run_key"]]
