"""`agentddl trace`: what a migration really locks, rewrites and blocks on a real server.

    result = run(TraceRequest(migrations=[Path("0007.sql")], schema_files=[Path("schema.sql")]))
    render(build_report(result), "text", sys.stdout)   # agentddl.checks.core.report.render

Findings come from the rules in `agentddl.checks.trace.rules` (ADT1xx). The names below
are imported on first use: the result is plain data, and importing it loads neither the
tracer nor the reporters.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.trace.observed import Limits
    from agentddl.checks.trace.report import build_report
    from agentddl.checks.trace.request import TraceRequest, run
    from agentddl.checks.trace.result import TraceResult

_HOMES = {
    "Limits": "observed",
    "TraceRequest": "request",
    "run": "request",
    "TraceResult": "result",
    "build_report": "report",
}
__all__ = ["Limits", "TraceRequest", "TraceResult", "build_report", "run"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
