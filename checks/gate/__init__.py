"""`agentddl check`: the one CI gate for a schema change.

It runs four families on one set of migrations and reports them as one: `lint` (with the
clone's schema), `trace` (the migrations applied to a scratch copy of the
clone), `verify` (the generic rules on that scratch database once migrated: what the
migrations added) and `audit` (the workload planned there, against a baseline). The
families never import each other; this layer, between the command line and them, calls
each one's public `run(request)`.

    result = run(CheckRequest([Path("migrations/versions")], clone="postgresql://ro@db/app"))
    render(build_report(result), "markdown", sys.stdout)   # agentddl.checks.core.report.render

The names below are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.gate.report import build_report
    from agentddl.checks.gate.request import run
    from agentddl.checks.gate.result import CheckResult, StepResult
    from agentddl.checks.gate.types import CheckRequest

_HOMES = {
    "CheckRequest": "types",
    "run": "request",
    "CheckResult": "result",
    "StepResult": "result",
    "build_report": "report",
}
__all__ = ["CheckRequest", "CheckResult", "StepResult", "build_report", "run"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
