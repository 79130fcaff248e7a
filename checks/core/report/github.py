"""GitHub Actions workflow commands: one annotation per finding (file annotations for
source positions; a titled annotation naming the object otherwise)."""

from __future__ import annotations

from typing import TextIO

from agentddl.checks.core.report.model import Report

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def render(report: Report, out: TextIO) -> None:
    for f in report.ordered:
        title = _property(f"{f.code} {f.name}" + (f" {f.object}" if f.object else ""))
        message = _data(f"{f.message} fix: {f.fix}")
        where = ""
        if f.file is not None:
            where = f"file={_property(f.file)},line={f.line or 1},col={f.column or 1},"
        out.write(f"::{LEVEL[f.severity]} {where}title={title}::{message}\n")


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
