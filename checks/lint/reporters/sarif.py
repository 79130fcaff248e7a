"""SARIF 2.1.0 for code-scanning tools."""

from __future__ import annotations

import json
from typing import Any, TextIO

from agentddl.checks.lint.report import LintReport, docs_link
from agentddl.checks.lint.rules import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(report: LintReport, out: TextIO) -> None:
    """One SARIF log with one run; every known rule is listed in the driver."""
    json.dump(sarif_log(report), out, indent=2, ensure_ascii=False)
    out.write("\n")


def sarif_log(report: LintReport) -> dict[str, Any]:
    """The SARIF document as a dict."""
    rules = [_rule(rule) for rule in all_rules()]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, -1),
            "level": _LEVEL[f.severity],
            "message": {"text": f"{f.message} help: {f.help}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
        }
        for f in report.findings
    ]
    driver = {
        "name": "agentddl",
        "informationUri": "https://github.com/agentddl/agentddl",
        "rules": rules,
    }
    return {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def _rule(rule: Any) -> dict[str, Any]:
    summary = (rule.__doc__ or "").strip().split("\n\n")[0]
    summary = " ".join(line.strip() for line in summary.splitlines() if not line.startswith("#"))
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.name},
        "fullDescription": {"text": _what_it_does(rule) or summary},
        "helpUri": docs_link(rule.name),
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
    }


def _what_it_does(rule: Any) -> str:
    doc = rule.__doc__ or ""
    if "## What it does" not in doc:
        return ""
    body = doc.split("## What it does", 1)[1].split("##", 1)[0]
    return " ".join(body.split())
