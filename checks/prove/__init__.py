"""`agentddl prove`: the schema's guarantees under concurrent workers and crashes.

run(ProveRequest) installs a profile's schema in a scratch database (or takes the one
already in a database), starts worker processes that run only the named queries of
queries.sql, drives the scenarios `scenarios/` declares (claim race, crash mid-step,
stale writer, forged lease, idempotency, outbox, poison message, tenant isolation,
version races, approvals decided once; on a server prove started itself the fault
scenarios too: the server crashed, a pooler restarted; with the hot projection in Redis,
four more), one guarantee each (a rule of `rules/`), and returns each as held or broken,
from what it observed; `build_report(result)` is its report in every format.

The names below are imported on first use: a worker process imports
agentddl.checks.prove.worker, and should not pay for the coordinator's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.prove.options import ProveOptions, ProveRequest
    from agentddl.checks.prove.pool import Pool
    from agentddl.checks.prove.report import build_report
    from agentddl.checks.prove.result import ProveResult, ScenarioResult
    from agentddl.checks.prove.runner import prove_model, run
    from agentddl.checks.prove.scenarios import SCENARIOS

_HOMES = {
    "ProveOptions": "options",
    "ProveRequest": "options",
    "Pool": "pool",
    "build_report": "report",
    "ProveResult": "result",
    "ScenarioResult": "result",
    "run": "runner",
    "prove_model": "runner",
    "SCENARIOS": "scenarios",
}
__all__ = [
    "SCENARIOS",
    "Pool",
    "ProveOptions",
    "ProveRequest",
    "ProveResult",
    "ScenarioResult",
    "build_report",
    "prove_model",
    "run",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"agentddl.checks.prove.{_HOMES[name]}"), name)
