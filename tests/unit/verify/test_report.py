"""verify's report through the shared reporters: text, JSON and SARIF shapes."""

from __future__ import annotations

import io
import json

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import render
from agentddl.checks.verify import VerifyResult, build_report

FINDINGS = [
    Finding(
        "ADV103", "redundant-index", "warning", "Slows writes.", "DROP it", object="agent.runs_tenant_idx"
    ),
    Finding("ADV104", "invalid-index", "error", "No query uses [it].", "REINDEX it", object="agent.ops_key"),
]


def rendered(fmt: str, findings: list[Finding] = FINDINGS, about: dict[str, object] | None = None) -> str:
    out = io.StringIO()
    render(build_report(VerifyResult(findings, {"schemas": ["agent"]} if about is None else about)), fmt, out)
    return out.getvalue()


def test_text_lists_errors_first_with_fix_and_summary() -> None:
    text = rendered("text")
    assert text.index("ADV104") < text.index("ADV103")
    assert "error ADV104 [invalid-index] agent.ops_key" in text
    assert "No query uses [it]." in text  # rich markup in messages is escaped, not eaten
    assert "fix: REINDEX it\n  docs: docs/rules/verify/invalid-index.md" in text
    assert text.rstrip().endswith("verify: 1 error(s), 1 warning(s), 0 info.")


def test_text_without_findings_says_so() -> None:
    assert rendered("text", [], {}).strip() == "verify: no findings."


def test_json_shape_is_stable() -> None:
    document = json.loads(rendered("json"))
    assert list(document) == ["tool", "schema_version", "schemas", "findings", "summary"]
    assert document["findings"][0] == {
        "code": "ADV104",
        "name": "invalid-index",
        "severity": "error",
        "file": None,
        "line": None,
        "column": None,
        "object": "agent.ops_key",
        "message": "No query uses [it].",
        "fix": "REINDEX it",
    }
    assert document["summary"] == {"error": 1, "warning": 1, "info": 0}


def test_sarif_has_every_rule_in_the_driver_and_logical_locations() -> None:
    log = json.loads(rendered("sarif"))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert ids[:4] == ["ADV101", "ADV102", "ADV103", "ADV104"] and len(ids) >= 20
    first = run["results"][0]
    assert first["ruleId"] == "ADV104" and ids[first["ruleIndex"]] == "ADV104" and first["level"] == "error"
    location = first["locations"][0]["logicalLocations"][0]
    assert location == {"name": "ops_key", "fullyQualifiedName": "agent.ops_key"}
    assert run["results"][1]["level"] == "warning"
