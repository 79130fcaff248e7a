"""Static migration linter: pglast AST rules that know the target version and runner.

Library use: `run(LintRequest(paths)) -> LintResult` (see `api`). The names below are
imported on first use, so importing one rule module does not load the whole linter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.lint.api import LintRequest, LintResult, run

__all__ = ["LintRequest", "LintResult", "run"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from agentddl.checks.lint import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
