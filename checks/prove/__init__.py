"""`agentddl prove`: the schema's guarantees under concurrent workers and crashes.

prove() installs a profile's schema (or takes one already in a database), starts worker
processes that run only the named queries of queries.sql, drives seven scenarios (claim
race, crash mid-step, stale writer, idempotency, outbox, tenant isolation, version
races) and reports each as held or broken, from what it observed.

The names below are imported on first use: a worker process imports
agentddl.checks.prove.worker, and should not pay for the coordinator's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.prove.options import ProveOptions
    from agentddl.checks.prove.pool import Pool
    from agentddl.checks.prove.result import ProveReport, ScenarioResult
    from agentddl.checks.prove.run import prove, prove_model
    from agentddl.checks.prove.scenarios import SCENARIOS

_HOMES = {
    "ProveOptions": "options",
    "Pool": "pool",
    "ProveReport": "result",
    "ScenarioResult": "result",
    "prove": "run",
    "prove_model": "run",
    "SCENARIOS": "scenarios",
}
__all__ = ["SCENARIOS", "Pool", "ProveOptions", "ProveReport", "ScenarioResult", "prove", "prove_model"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"agentddl.checks.prove.{_HOMES[name]}"), name)
