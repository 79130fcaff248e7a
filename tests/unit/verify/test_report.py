"""The live-findings reporters: text, JSON and SARIF shapes."""

from __future__ import annotations

import io
import json

from agentddl.checks.core.findings import Finding
from agentddl.checks.report import RuleInfo, render_findings

FINDINGS = [
    Finding("ADV103", "redundant-index", "warning", "agent.runs_tenant_idx", "Slows writes.", "DROP it"),
    Finding("ADV104", "invalid-index", "error", "agent.ops_key", "No query uses [it].", "REINDEX it"),
]
RULES = [RuleInfo("ADV104", "invalid-index", "error", "Invalid indexes.", "docs/verify/invalid-index.md")]


def render(fmt: str) -> str:
    out = io.StringIO()
    render_findings(FINDINGS, fmt, out, tool="verify", rules=RULES, extra={"schemas": ["agent"]})  # type: ignore[arg-type]
    return out.getvalue()


def test_text_lists_errors_first_with_fix_and_summary() -> None:
    text = render("text")
    assert text.index("ADV104") < text.index("ADV103")
    assert "error ADV104 [invalid-index] agent.ops_key" in text
    assert "No query uses [it]." in text  # rich markup in messages is escaped, not eaten
    assert "fix: REINDEX it\n  docs: docs/verify/invalid-index.md" in text
    assert text.rstrip().endswith("verify: 1 error(s), 1 warning(s), 0 info.")


def test_text_without_findings_says_so() -> None:
    out = io.StringIO()
    render_findings([], "text", out, tool="verify")
    assert out.getvalue().strip() == "verify: no findings."


def test_json_shape_is_stable() -> None:
    document = json.loads(render("json"))
    assert list(document) == ["tool", "schemas", "findings", "summary"]
    assert document["findings"][0] == {
        "code": "ADV104",
        "name": "invalid-index",
        "severity": "error",
        "object": "agent.ops_key",
        "message": "No query uses [it].",
        "fix": "REINDEX it",
    }
    assert document["summary"] == {"error": 1, "warning": 1, "info": 0}


def test_sarif_has_rules_in_driver_and_logical_locations() -> None:
    log = json.loads(render("sarif"))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert ids == ["ADV104", "ADV103"]  # given rules first, then codes only seen in findings
    first = run["results"][0]
    assert first["ruleId"] == "ADV104" and first["ruleIndex"] == 0 and first["level"] == "error"
    location = first["locations"][0]["logicalLocations"][0]
    assert location == {"name": "ops_key", "fullyQualifiedName": "agent.ops_key"}
    assert run["results"][1]["level"] == "warning"
