"""The audit's rules: one class each, documented, the only place a code is spelled; their
pages in docs/rules/audit/ are generated from them; every output format renders them."""

from __future__ import annotations

import ast
import inspect
import io
import json
import re
from pathlib import Path

import pytest

from agentddl.checks.audit.report import build_report
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.rules import AuditRule, all_rules
from agentddl.checks.core.report import FORMATS, render
from agentddl.checks.core.rules import docs_path, documentation, missing_sections

ROOT = Path(__file__).resolve().parents[3]
AUDIT_SOURCES = [*sorted((ROOT / "checks" / "audit").glob("*.py")), ROOT / "checks" / "cli" / "audit.py"]


def test_rules_have_unique_codes_and_names_and_every_section() -> None:
    rules = all_rules()
    assert len({r.code for r in rules}) == len({r.name for r in rules}) == len(rules) == 20
    for rule in rules:
        assert re.fullmatch(r"ADA1[0-2]\d", rule.code) and re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert rule.family == "audit" and rule.severity in ("error", "warning", "info")
        assert missing_sections(rule) == [], rule.code
        assert rule.__module__.rsplit(".", 1)[-1] == rule.name.replace("-", "_")


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_every_rule_module_holds_its_judgement(rule: type[AuditRule]) -> None:
    """No rule is docs only: its class implements the verdict of a kind of facts (a base
    the gathering module defines), which asks it through the registry."""
    methods = {name: value for name, value in vars(rule).items() if not name.startswith("_")}
    own = [name for name, value in methods.items() if inspect.isfunction(value)]
    assert own, f"{rule.code} judges nothing"
    kinds = [base for base in rule.__mro__[1:] if issubclass(base, AuditRule) and base is not AuditRule]
    assert kinds and all(base.__module__ != rule.__module__ for base in kinds)


def test_plan_rules_have_one_place_each_among_a_paths_findings() -> None:
    from agentddl.checks.audit.judge import PlanRule, plan_errors
    from agentddl.checks.audit.rules import rules_of

    plan_rules = rules_of(PlanRule)
    assert len({rule.order for rule in plan_rules}) == len(plan_rules) == 11
    assert plan_errors() == {"ADA101", "ADA102", "ADA108", "ADA109"}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_pages_are_generated_from_the_docstrings(rule: type[AuditRule]) -> None:
    """(`python -m agentddl.checks.docs --check` compares every page byte for byte.)"""
    page = ROOT / docs_path(rule)
    assert page.is_file(), "run python -m agentddl.checks.docs"
    text = page.read_text(encoding="utf-8")
    assert f"# {rule.code}: {rule.name}\n" in text and documentation(rule) in text


@pytest.mark.parametrize("source", AUDIT_SOURCES, ids=lambda path: path.name)
def test_no_rule_code_is_spelled_outside_its_rule_class(source: Path) -> None:
    """Findings are made with SomeRule.finding(...): a code literal elsewhere is a copy
    that can drift from the rule's own."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    literals = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if re.fullmatch(r"ADA\d{3}", node.value)
    ]
    assert literals == []


def _failing_result() -> AuditResult:
    from agentddl.checks.audit.paths import AuditPath
    from agentddl.checks.audit.planning import PathResult
    from agentddl.checks.audit.rules.seq_scan_on_large_table import SeqScanOnLargeTable
    from agentddl.checks.audit.rules.unused_index import UnusedIndex

    path = AuditPath("by_trace", "SELECT 1", (), "runs", None, "user", "q.sql:1")
    seq = SeqScanOnLargeTable.finding(
        "by_trace reads agent.runs, 100,000 rows, by sequential scan.", "add an index", object="by_trace"
    )
    unused = UnusedIndex.finding("No access path uses runs_x_idx.", "drop it", object="agent.runs_x_idx")
    return AuditResult(16, (PathResult(path, None, (seq,)),), hygiene=(unused,))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_the_audit(fmt: str) -> None:
    result = _failing_result()
    report = build_report(result)
    assert report.tool == "audit" and report.exit_code == 1
    out = io.StringIO()
    render(report, fmt, out)
    text = out.getvalue()
    if fmt == "json":
        doc = json.loads(text)
        assert doc["tool"] == "audit" and doc["passed"] is False and doc["server_version"] == 16
        assert [f["code"] for f in doc["findings"]] == ["ADA101", "ADA111"]
        assert doc["findings"][0]["object"] == "by_trace" and doc["findings"][0]["fix"] == "add an index"
        assert doc["summary"] == {"error": 1, "warning": 1, "info": 0}
    elif fmt == "sarif":
        run = json.loads(text)["runs"][0]
        assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {r.code for r in all_rules()}
        assert run["properties"]["command"] == "audit"
    elif fmt == "github":
        assert text.startswith("::error title=ADA101 seq-scan-on-large-table by_trace::by_trace reads")
        assert "::warning title=ADA111 unused-index agent.runs_x_idx::" in text
    elif fmt == "gitlab":
        issues = json.loads(text)
        assert [(i["check_name"], i["severity"], i["location"]["path"]) for i in issues] == [
            ("ADA101", "critical", "by_trace"),
            ("ADA111", "major", "agent.runs_x_idx"),
        ]
    else:
        assert "ADA101" in text and "docs/rules/audit/seq-scan-on-large-table.md" in text
        assert "by_trace" in text and ("FAIL" in text)
