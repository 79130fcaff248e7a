"""A bench run's result: the server it ran on, and per history size every segment's
figures and every hot path's ratios to the floor. Plain data: `report.build_report(result)`
is its `core.report.Report`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from statistics import mean
from typing import Any

from agentddl.checks.bench.figures import Figures, PathResult
from agentddl.checks.bench.options import BenchOptions


@dataclass(frozen=True)
class ServerFacts:
    version: int
    where: str
    embedded: bool  # started by bench
    settings: dict[str, str]  # as the server reports them
    file_system: str | None  # of the data directory, when local
    not_durable: list[str]  # why a commit here is not durable (empty: it is)
    cpu_source: str
    checkpoint_each_segment: bool

    @property
    def durable(self) -> str:
        return "yes" if not self.not_durable else "NO: " + "; ".join(self.not_durable)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "durable": not self.not_durable}


@dataclass(frozen=True)
class HistoryResult:
    history: int | None  # rows of history seeded (None: the database's own, in place)
    rows: dict[str, int]  # rows per table when measuring started
    segments: list[Figures]  # every measured segment in order, the floors included
    paths: list[PathResult]
    seconds: float

    @property
    def label(self) -> str:
        return f"history {self.history:,}" if self.history is not None else "in place"

    def floors(self, name: str = "floor") -> list[Figures]:
        return [s for s in self.segments if s.workload == name]

    def floor_rate(self, name: str = "floor") -> float:
        rates = [s.ops_per_second for s in self.floors(name)]
        return mean(rates) if rates else 0.0

    def path(self, name: str) -> PathResult | None:
        return next((p for p in self.paths if p.path.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "history": self.history,
            "rows": self.rows,
            "seconds": round(self.seconds, 1),
            "segments": [s.to_json() for s in self.segments],
            "paths": [p.to_json() for p in self.paths],
        }


@dataclass(frozen=True)
class BenchResult:
    profile: str
    server: ServerFacts
    options: BenchOptions
    histories: list[HistoryResult]
    seconds: float

    @property
    def errors(self) -> int:
        return sum(s.errors for h in self.histories for s in h.segments)

    def scaling(self) -> list[dict[str, Any]]:
        """Per hot path, its per-operation CPU and median latency at each history size,
        and how much they grew from the smallest to the largest."""
        if len(self.histories) < 2:
            return []
        found = []
        for path in self.histories[0].paths:
            name = path.path.name
            at = [h.path(name) for h in self.histories]
            cpu = [p.figures.cpu_ms_per_op if p else None for p in at]
            p50 = [p.figures.p50_ms if p else None for p in at]
            found.append(
                {
                    "path": name,
                    "title": path.path.title,
                    "histories": [h.history for h in self.histories],
                    "cpu_ms_per_op": cpu,
                    "p50_ms": p50,
                    "cpu_growth": _growth(cpu),
                    "p50_growth": _growth(p50),
                }
            )
        return found

    def run_facts(self) -> dict[str, Any]:
        o = self.options
        return {
            "profile": self.profile,
            "server": self.server.where,
            "postgres": self.server.version,
            "durable": self.server.durable,
            "clients": o.clients,
            "duration_seconds": o.duration,
            "history": [h.history for h in self.histories],
            "cpu": self.server.cpu_source,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "run": {**self.run_facts(), "seconds": round(self.seconds, 1), "options": asdict(self.options)},
            "settings": self.server.to_json(),
            "histories": [h.to_json() for h in self.histories],
            "scaling": self.scaling(),
        }


def _growth(values: list[float | None]) -> float | None:
    """Last ÷ first (None when either is missing or zero)."""
    if not values or values[0] is None or values[-1] is None or not values[0]:
        return None
    return round(values[-1] / values[0], 3)
