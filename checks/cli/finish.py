"""The one way a command ends: its report on stdout in the chosen format, why it failed on
stderr when the command names it, and the report's exit code (0 clean, 1 failed)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from agentddl.checks.core.report import Report


def finish(report: Report, output_format: str, failure: str = "") -> NoReturn:
    """Render `report`, print `failure` (one line, when given), exit with the report's code."""
    from agentddl.checks.core.report import render

    render(report, output_format, sys.stdout)
    if failure:
        print(f"agentddl: {failure}", file=sys.stderr)
    raise typer.Exit(report.exit_code)
