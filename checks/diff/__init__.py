"""`agentddl diff`: what changing a schema from one profile to another takes, step by step:
the lock each step takes, whether it reads or rewrites the table, how long it runs; the
changes with no online form, with their plan. Between two profiles (pure), or from a live
database's catalog to a profile.

Library use: `run(DiffRequest(old, new)) -> DiffResult`, `build_report(result)` for any
output format (`agentddl.checks.core.report.render`). The rules: `agentddl.checks.diff.rules`.
The names below are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.diff.report import build_report
    from agentddl.checks.diff.request import DiffRequest, run
    from agentddl.checks.diff.result import DiffResult

_HOMES = {
    "build_report": "report",
    "DiffResult": "result",
    "DiffRequest": "request",
    "run": "request",
}
__all__ = ["DiffRequest", "DiffResult", "build_report", "run"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
