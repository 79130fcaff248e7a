"""JSON for machines: `{"tool", "schema_version", **about, **details, "findings", "summary"}`,
the same top-level keys for findings in every command (see `Finding.as_dict`).

`schema_version` is the version of this output format, "MAJOR.MINOR": the minor grows
when a key is added, the major only for a breaking change (a key removed, renamed or
given another type). Each command's document is described by its JSON Schema under
docs/schemas/ (generated from `agentddl.checks.core.report.schema` and the families'
output models by `python -m agentddl.checks.docs`).
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from agentddl.checks.core.report.model import Report

SCHEMA_VERSION = "1.0"

# Deprecated finding keys kept for one minor release, per command: alias -> the key it copies.
# lint's findings named the rule "rule" before every command shared one finding shape; "rule"
# stays in the 0.2 releases and goes in 0.3.0 (schema_version 2.0).
DEPRECATED_ALIASES: dict[str, dict[str, str]] = {"lint": {"rule": "name"}}


def document(report: Report) -> dict[str, Any]:
    """The JSON report as a dict, keys in a stable order."""
    aliases = DEPRECATED_ALIASES.get(report.tool, {})
    return {
        "tool": report.tool,
        "schema_version": SCHEMA_VERSION,
        **report.about,
        **report.details,
        "findings": [_finding(f.as_dict(), aliases) for f in report.ordered],
        "summary": report.counts,
    }


def _finding(shape: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    return {**shape, **{alias: shape[key] for alias, key in aliases.items()}}


def render(report: Report, out: TextIO) -> None:
    json.dump(document(report), out, indent=2, ensure_ascii=False, default=str)
    out.write("\n")
