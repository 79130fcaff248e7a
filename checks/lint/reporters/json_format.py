"""`{"findings": [{file, line, column, code, rule, severity, message, help}], "files": N}`."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TextIO

from agentddl.checks.lint.report import LintReport


def render(report: LintReport, out: TextIO) -> None:
    """One JSON object, keys in a stable order."""
    document = {"findings": [asdict(f) for f in report.findings], "files": report.files}
    json.dump(document, out, indent=2, ensure_ascii=False)
    out.write("\n")
