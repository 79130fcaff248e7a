"""The trace report: text table + findings, JSON with the documented keys, SARIF,
GitHub annotations and Markdown, through the shared reporters."""

from __future__ import annotations

import io
import json

from agentddl.checks.core.report import render
from agentddl.checks.pg.lockmodes import blocked_kinds
from agentddl.checks.trace import Limits, TraceResult, build_report
from agentddl.checks.trace.judge import judge
from agentddl.checks.trace.types import HeldLock, StatementTrace, Throughput


def result(with_load: bool) -> TraceResult:
    statement = StatementTrace(
        file="migrations/0007.sql",
        line=4,
        sql="CREATE INDEX orders_idx ON public.orders (a)",
        in_transaction=False,
        locks=[
            HeldLock("public.orders", "ShareLock", blocked_kinds("ShareLock")),
            HeldLock("public.orders_idx", "AccessExclusiveLock"),
        ],
        scanned=["public.orders"],
        duration_ms=812.34,
        strongest_lock="ShareLock",
        lock_held_ms=815.0,
        blocked_ms=790.0 if with_load else None,
    )
    traced = TraceResult(server_version=17, statements=[statement], existing={"public.orders"})
    traced.findings = judge(traced.statements, traced.existing, Limits())
    if with_load:
        traced.throughput = Throughput(
            before=2000.0, during=60.0, after=1900.0, queries=5000, connections=4, errors=0
        )
    return traced


def rendered(traced: TraceResult, fmt: str) -> str:
    out = io.StringIO()
    render(build_report(traced), fmt, out)
    return out.getvalue()


def test_json_keys() -> None:
    document = json.loads(rendered(result(with_load=True), "json"))
    assert list(document) == [
        "tool",
        "schema_version",
        "server_version",
        "statements",
        "load",
        "findings",
        "summary",
    ]
    (statement,) = document["statements"]
    assert list(statement) == [
        "file",
        "line",
        "sql",
        "in_transaction",
        "locks",
        "waited_for",
        "rewritten",
        "emptied",
        "scanned",
        "written",
        "duration_ms",
        "strongest_lock",
        "lock_held_ms",
        "lock_timeout_ms",
        "statement_timeout_ms",
        "blocked_ms",
    ]
    assert statement["locks"][0] == {
        "relation": "public.orders",
        "mode": "ShareLock",
        "blocks": ["writes", "claims"],
    }
    assert document["load"] == {
        "before_qps": 2000.0,
        "during_qps": 60.0,
        "after_qps": 1900.0,
        "queries": 5000,
        "connections": 4,
        "errors": 0,
    }
    assert {f["code"] for f in document["findings"]} == {"ADT102", "ADT104", "ADT105"}


def test_without_load_there_is_no_blocked_ms() -> None:
    document = json.loads(rendered(result(with_load=False), "json"))
    assert "load" not in document and "blocked_ms" not in document["statements"][0]


def test_text_lists_locks_on_existing_relations_and_the_findings() -> None:
    text = rendered(result(with_load=True), "text")
    assert "trace on PostgreSQL 17" in text and "Share public.orders" in text
    assert "(+1 on relations created here)" in text and "blocked ms" in text
    assert "2000 q/s before, 60 during, 1900 after" in text
    assert "migrations/0007.sql:4:1 (public.orders): error ADT104 [workload-blocked]" in text


def test_sarif_has_every_rule() -> None:
    log = json.loads(rendered(result(with_load=True), "sarif"))
    rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {f"ADT10{n}" for n in range(1, 9)}
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"ADT102", "ADT104", "ADT105"}


def test_findings_carry_the_statement_position_and_the_relation() -> None:
    document = json.loads(rendered(result(with_load=True), "json"))
    blocked = next(f for f in document["findings"] if f["code"] == "ADT104")
    assert blocked == {
        "code": "ADT104",
        "name": "workload-blocked",
        "severity": "error",
        "file": "migrations/0007.sql",
        "line": 4,
        "column": None,
        "object": "public.orders",
        "message": "runtime queries waited up to 790 ms on this statement (limit 200 ms).",
        "fix": blocked["fix"],
    }
    assert document["summary"] == {"error": 1, "warning": 2, "info": 0}


def test_github_annotations_point_at_the_statement() -> None:
    lines = rendered(result(with_load=True), "github").splitlines()
    assert lines[0].startswith("::error file=migrations/0007.sql,line=4,col=1,title=ADT104 workload-blocked")
    assert len(lines) == 3


def test_markdown_has_the_statement_table_and_the_findings() -> None:
    text = rendered(result(with_load=True), "markdown")
    assert "| statement | locks held | rewritten / scanned | ms | held ms | blocked ms |" in text
    assert "| 0007.sql:4<br>CREATE INDEX orders_idx ON public.orders (a) | Share public.orders<br>" in text
    assert "[workload-blocked](docs/rules/trace/workload-blocked.md)" in text
    assert "2000 q/s before, 60 during, 1900 after" in text


def test_exit_code_follows_the_error_findings() -> None:
    assert build_report(result(with_load=True)).exit_code == 1
    assert build_report(result(with_load=False)).exit_code == 0  # ADT102 and ADT105 are warnings
