"""Text for people (rich): what was checked, the command's own tables, each finding with
its consequence, fix and docs page, then a summary line.

A finding at a source position shows its line with a caret under the column; a finding
about a database object names the object.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.markup import escape

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report.model import Report

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render(report: Report, out: TextIO) -> None:
    # emoji=False: a source line or message is shown verbatim (`:warning:` in SQL stays text)
    console = Console(file=out, highlight=False, emoji=False, soft_wrap=True, width=120)
    for key, value in report.about.items():
        if value is not None:
            shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
            console.print(f"{escape(key)}: {escape(shown)}")
    if report.text_body is not None:
        report.text_body(console)
    docs = report.rule_docs()
    for finding in report.ordered:
        console.print(_finding(finding, report.sources.get(finding.file or ""), docs.get(finding.code)))
    console.print(escape(report.summary_line()))


def _finding(finding: Finding, source: str | None, docs: str | None) -> str:
    style = _STYLE[finding.severity]
    head = f"{escape(finding.where)}: " if finding.file is not None else ""
    lines = [
        f"{head}[{style}]{finding.severity}[/] {finding.code} [bold]\\[{escape(finding.name)}][/bold]"
        + (f" {escape(finding.object)}" if finding.object and finding.file is None else "")
    ]
    lines += [escape(line) for line in _context(finding, source)]
    lines += [f"  {escape(finding.message)}", f"  fix: {escape(finding.fix)}"]
    if docs:
        lines.append(f"  docs: {escape(docs)}")
    return "\n".join(lines) + "\n"


def _context(finding: Finding, source: str | None) -> list[str]:
    """The finding's source line and a caret under its column (nothing without a source)."""
    if not source or not finding.line:
        return []
    lines = source.splitlines()
    if not 0 < finding.line <= len(lines) or not lines[finding.line - 1].strip():
        return []
    gutter = f"{finding.line} | "
    caret = " " * (len(gutter) + (finding.column or 1) - 1) + "^"
    return [gutter + lines[finding.line - 1].expandtabs(1), caret]
