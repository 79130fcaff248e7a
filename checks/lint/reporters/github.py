"""GitHub Actions workflow commands: one annotation per finding."""

from __future__ import annotations

from typing import TextIO

from agentddl.checks.lint.report import LintReport

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def render(report: LintReport, out: TextIO) -> None:
    """`::error file=...,line=...,col=...,title=...::message`."""
    for f in report.findings:
        title = _property(f"{f.code} {f.rule}")
        message = _data(f"{f.message} help: {f.help}")
        out.write(
            f"::{_LEVEL[f.severity]} file={_property(f.file)},line={f.line},"
            f"col={f.column},title={title}::{message}\n"
        )


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
