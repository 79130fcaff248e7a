"""JSON for machines: `{"tool", **about, **details, "findings", "summary"}`, the same
top-level keys for findings in every command (see `Finding.as_dict`)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from agentddl.checks.core.report.model import Report


def document(report: Report) -> dict[str, Any]:
    """The JSON report as a dict, keys in a stable order."""
    return {
        "tool": report.tool,
        **report.about,
        **report.details,
        "findings": [f.as_dict() for f in report.ordered],
        "summary": report.counts,
    }


def render(report: Report, out: TextIO) -> None:
    json.dump(document(report), out, indent=2, ensure_ascii=False, default=str)
    out.write("\n")
