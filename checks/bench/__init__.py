"""`agentddl bench`: what the profile's hot paths cost on a server, as ratios to its
durable-commit floor.

run(BenchRequest) measures, on one server and in one run, the durable-commit floor (one
UPDATE by key and one INSERT per commit; and a cycle of two such commits) and the
profile's hot paths through its generated queries (claim + complete, a full step,
heartbeat, checkpoint save, latest-checkpoint read, the lease sweep), each right between
two floor measurements, with concurrent client processes; per operation: rate, latency
percentiles, WAL bytes, full-page images and server CPU; and how those move with rows of
history (a fresh, seeded database per size). `build_report(result)` is its report in
every format.

The names below are imported on first use: a client process imports
agentddl.checks.bench.worker, and should not pay for the coordinator's modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.bench.options import BenchOptions, BenchRequest
    from agentddl.checks.bench.pool import Clients
    from agentddl.checks.bench.report import build_report
    from agentddl.checks.bench.result import BenchResult, HistoryResult
    from agentddl.checks.bench.runner import run

_HOMES = {
    "BenchOptions": "options",
    "BenchRequest": "options",
    "Clients": "pool",
    "BenchResult": "result",
    "HistoryResult": "result",
    "build_report": "report",
    "run": "runner",
}
__all__ = ["BenchOptions", "BenchRequest", "BenchResult", "Clients", "HistoryResult", "build_report", "run"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"agentddl.checks.bench.{_HOMES[name]}"), name)
