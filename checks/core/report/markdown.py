"""Markdown for a pull-request comment: the command's own section, then a findings table."""

from __future__ import annotations

from typing import TextIO

from agentddl.checks.core.report.model import Report

_ICON = {"error": "error", "warning": "warning", "info": "info"}


def render(report: Report, out: TextIO) -> None:
    out.write(document(report))


def document(report: Report) -> str:
    parts = [f"## agentddl {report.tool}\n"]
    about = [f"- {key}: {_inline(value)}" for key, value in report.about.items() if value is not None]
    if about:
        parts.append("\n".join(about) + "\n")
    if report.markdown_body is not None:
        parts.append(report.markdown_body().rstrip("\n") + "\n")
    findings = report.ordered
    if findings:
        docs = report.rule_docs()
        rows = ["| severity | rule | where | finding | fix |", "|---|---|---|---|---|"]
        for f in findings:
            rule = f"{f.code} [{f.name}]({docs[f.code]})" if f.code in docs else f"{f.code} {f.name}"
            cells = (_ICON[f.severity], rule, f.where, f.message, f.fix)
            rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
        parts.append("\n".join(rows) + "\n")
    parts.append(f"**{report.summary_line()}**\n")
    return "\n".join(parts)


def _inline(value: object) -> str:
    shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    return _cell(shown)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a bare `|` would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\n", " ")
