"""Reporters: one module per output format, each `render(report, out)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from agentddl.checks.lint.report import LintReport
from agentddl.checks.lint.reporters import github, json_format, sarif, text

Renderer = Callable[[LintReport, TextIO], None]
FORMATS: dict[str, Renderer] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
