"""SARIF 2.1.0 for code-scanning tools: one run, every rule of the command in the driver.

A finding at a source position gets a physical location; one about a database object
a logical location (its schema-qualified name); a trace finding has both.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report.model import Report
from agentddl.checks.core.rules import Rule, docs_path, summary

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/agentddl/agentddl"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(report: Report, out: TextIO) -> None:
    json.dump(sarif_log(report), out, indent=2, ensure_ascii=False)
    out.write("\n")


def sarif_log(report: Report) -> dict[str, Any]:
    """The SARIF document as a dict."""
    rules = [_rule(rule) for rule in report.rules]
    known = {rule["id"] for rule in rules}
    for finding in report.ordered:  # a code no rule class declares (should not happen)
        if finding.code not in known:
            known.add(finding.code)
            rules.append(_bare_rule(finding))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    driver = {"name": "agentddl", "informationUri": INFORMATION_URI, "rules": rules}
    results = [_result(f, index[f.code]) for f in report.ordered]
    return {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{"tool": {"driver": driver}, "results": results, "properties": {"command": report.tool}}],
    }


def _rule(rule: type[Rule]) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.name},
        "fullDescription": {"text": summary(rule)},
        "helpUri": docs_path(rule),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"family": rule.family},
    }


def _bare_rule(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.code,
        "name": finding.name,
        "shortDescription": {"text": finding.name},
        "defaultConfiguration": {"level": LEVEL[finding.severity]},
    }


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if finding.file is not None:
        location["physicalLocation"] = {
            "artifactLocation": {"uri": finding.file},
            "region": {"startLine": finding.line or 1, "startColumn": finding.column or 1},
        }
    if finding.object:
        location["logicalLocations"] = [
            {"name": finding.object.rsplit(".", 1)[-1], "fullyQualifiedName": finding.object}
        ]
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVEL[finding.severity],
        "message": {"text": f"{finding.message} fix: {finding.fix}"},
        "locations": [location] if location else [],
    }
