"""Human output: the statement line with a caret, the consequence, the fix, a docs link."""

from __future__ import annotations

from typing import TextIO

from agentddl.checks.lint.report import LintReport, docs_link
from agentddl.checks.lint.types import Finding


def render(report: LintReport, out: TextIO) -> None:
    """Print every finding, then a one-line summary."""
    for finding in report.findings:
        out.write(_finding(finding, report.sources.get(finding.file, "")))
    out.write(_summary(report) + "\n")


def _finding(finding: Finding, source: str) -> str:
    lines = source.splitlines()
    code_line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    gutter = f"{finding.line} | "
    caret = " " * (len(gutter) + finding.column - 1) + "^"
    parts = [
        f"{finding.file}:{finding.line}:{finding.column}: {finding.code} [{finding.rule}] {finding.severity}"
    ]
    if code_line.strip():
        parts += [f"{gutter}{code_line.expandtabs(1)}", caret]
    parts += [
        f"  {finding.message}",
        f"  help: {finding.help}",
        f"  docs: {docs_link(finding.rule)}",
        "",
    ]
    return "\n".join(parts) + "\n"


def _summary(report: LintReport) -> str:
    errors = sum(1 for f in report.findings if f.severity == "error")
    others = len(report.findings) - errors
    files = f"{report.files} file{'s' if report.files != 1 else ''}"
    if not report.findings:
        return f"{files} linted: no findings."
    return f"{files} linted: {errors} error(s), {others} warning(s)/info."
