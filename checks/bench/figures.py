"""From what the clients and the server said about a segment to the figures a reader
compares: operations per second, latency percentiles, WAL, full-page images and CPU per
operation, and each hot path's ratio to the floor measured right before and after it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from agentddl.checks.bench.observe import Delta
from agentddl.checks.bench.paths import Workload
from agentddl.checks.bench.worker import Measured


@dataclass(frozen=True)
class Figures:
    """One measured segment of one workload."""

    workload: str
    ops: int
    ops_per_second: float
    p50_ms: float | None
    p99_ms: float | None
    wal_bytes_per_op: float | None
    wal_fpi_per_op: float | None
    wal_records_per_op: float | None
    cpu_ms_per_op: float | None  # the clients' backends (or active time: see the report's cpu source)
    server_cpu_ms_per_op: float | None  # every process of the server, when it is local
    client_cpu_ms_per_op: float | None = None  # the client processes' own CPU
    empty_claims: int = 0
    errors: int = 0
    first_error: str | None = None
    wal_from: str | None = None  # the WAL it wrote: pg_waldump -s wal_from -e wal_to
    wal_to: str | None = None
    runs_updates: int = 0  # updates of runs during the segment (pg_stat_user_tables)
    runs_hot_share: float | None = None  # the share of them that were HOT (None: no update)

    def to_json(self) -> dict[str, Any]:
        return {key: _rounded(value) for key, value in asdict(self).items()}


def percentile(sorted_values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of already sorted values (None: no values)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(share * len(sorted_values)))
    return sorted_values[rank - 1]


def figures(workload: Workload, measured: list[Measured], delta: Delta) -> Figures:
    ops = sum(m.ops for m in measured)
    rate = sum(m.ops / m.seconds for m in measured if m.seconds > 0)
    latencies = sorted(x for m in measured for x in m.latencies)
    first_error = next((m.first_error for m in measured if m.first_error), None)

    def per_op(total: float | None, scale: float = 1.0) -> float | None:
        return total * scale / ops if ops and total is not None else None

    cpu = delta.backends_cpu_ms if delta.backends_cpu_ms is not None else delta.active_ms
    p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
    return Figures(
        workload.name,
        ops,
        rate,
        p50 * 1000 if p50 is not None else None,
        p99 * 1000 if p99 is not None else None,
        per_op(delta.wal_bytes),
        per_op(delta.wal_fpi),
        per_op(delta.wal_records),
        per_op(cpu),
        per_op(delta.server_cpu_ms),
        per_op(sum(m.cpu_seconds for m in measured), 1000.0),
        sum(m.empty for m in measured),
        sum(m.errors for m in measured),
        first_error,
        delta.wal_from,
        delta.wal_to,
        int(delta.runs_updates),
        delta.runs_hot_updates / delta.runs_updates if delta.runs_updates > 0 else None,
    )


@dataclass(frozen=True)
class PathResult:
    """A hot path's figures and the floors around it."""

    path: Workload
    figures: Figures
    floor: float  # the one-commit floor's ops/s: mean of the measurements right before and after
    floor2: float | None = None  # the two-commit floor's cycles/s, likewise (when compared with it)
    floor_cpu_ms: float | None = None  # the floor's CPU per commit, likewise

    @property
    def ratio(self) -> float:
        """Operations per second ÷ floor commits per second."""
        return self.figures.ops_per_second / self.floor if self.floor else 0.0

    @property
    def ratio_per_commit(self) -> float:
        """Commits per second this path achieves ÷ the floor's."""
        return self.ratio * self.path.commits

    @property
    def cpu_per_commit_ratio(self) -> float | None:
        """CPU per operation ÷ (commits x the floor's CPU per commit): how much more server
        work each commit does than the floor's (steadier than rates on a busy machine)."""
        cpu = self.figures.cpu_ms_per_op
        if cpu is None or not self.floor_cpu_ms:
            return None
        return cpu / (self.path.commits * self.floor_cpu_ms)

    @property
    def ratio_two_commit(self) -> float | None:
        if not self.floor2:
            return None
        return self.figures.ops_per_second / self.floor2

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path.name,
            "title": self.path.title,
            "commits": self.path.commits,
            "floor_ops_per_second": _rounded(self.floor),
            "floor2_ops_per_second": _rounded(self.floor2),
            "ratio": _rounded(self.ratio),
            "ratio_per_commit": _rounded(self.ratio_per_commit),
            "ratio_two_commit_floor": _rounded(self.ratio_two_commit),
            "floor_cpu_ms_per_commit": _rounded(self.floor_cpu_ms),
            "cpu_per_commit_ratio": _rounded(self.cpu_per_commit_ratio),
            **{k: v for k, v in self.figures.to_json().items() if k != "workload"},
        }


def around(segments: list[Figures], index: int, floor: str, value: str = "ops_per_second") -> float:
    """The mean `value` of the nearest `floor` segments before and after `index` (0.0:
    none has it)."""
    before = next((s for s in reversed(segments[:index]) if s.workload == floor), None)
    after = next((s for s in segments[index + 1 :] if s.workload == floor), None)
    found = [getattr(s, value) for s in (before, after) if s is not None and getattr(s, value) is not None]
    return sum(found) / len(found) if found else 0.0


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4) if abs(value) < 100 else round(value, 1)
    return value
