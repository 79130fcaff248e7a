"""One set of reporters for every command: text, json, sarif, github, gitlab, markdown.

A command builds one `Report` (its findings, its rules, what it checked and its own
data) and `render(report, fmt, out)` writes it. A new rule never touches a reporter; a
new format is one module here and one entry in `RENDERERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TextIO

from agentddl.checks.core.report import github, gitlab, json_format, markdown, sarif, text
from agentddl.checks.core.report.model import Report

Format = Literal["text", "json", "sarif", "github", "gitlab", "markdown"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif", "github", "gitlab", "markdown")
RENDERERS: dict[str, Callable[[Report, TextIO], None]] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "markdown": markdown.render,
}


def render(report: Report, fmt: str, out: TextIO) -> None:
    """Write `report` to `out` in `fmt` (one of FORMATS)."""
    RENDERERS[fmt](report, out)


__all__ = ["FORMATS", "Format", "Report", "render"]
