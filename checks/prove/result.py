"""Verdicts: each scenario's counts, which of them must be zero, and the totals."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The totals, as `--format json` prints them (their order is the documented one).
TOTAL_KEYS = (
    "duplicate_effects",
    "lost_runs",
    "stuck_runs",
    "stale_writes_accepted",
    "lost_outbox",
    "duplicate_deliveries",
    "runs_completed",
)
Count = int | float | bool


@dataclass
class ScenarioResult:
    name: str
    strategy: str
    counts: dict[str, Count]
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def held(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "strategy": self.strategy,
            "held": self.held,
            **self.counts,
            "violations": self.violations,
            "seconds": round(self.seconds, 2),
        }


def verdict(
    name: str, strategy: str, counts: Mapping[str, Count], must_be_zero: dict[str, str]
) -> ScenarioResult:
    """The scenario holds when every count in `must_be_zero` is 0; each that is not
    becomes a violation, worded by its description."""
    violations = [
        f"{description}: {counts[key]}" for key, description in must_be_zero.items() if counts.get(key)
    ]
    return ScenarioResult(name, strategy, dict(counts), violations)


@dataclass
class ProveReport:
    scenarios: list[ScenarioResult]
    seconds: float
    run: dict[str, Any]  # what was proven: profile, strategies, server, workers, runs

    @property
    def held(self) -> bool:
        return all(s.held for s in self.scenarios)

    def totals(self) -> dict[str, Any]:
        found: dict[str, Any] = {k: sum(int(s.counts.get(k, 0)) for s in self.scenarios) for k in TOTAL_KEYS}
        found["seconds"] = round(self.seconds, 2)
        return found

    def to_json(self) -> dict[str, Any]:
        completed = self.totals()["runs_completed"]
        run = {**self.run, "runs_per_second": round(completed / self.seconds, 1) if self.seconds else 0.0}
        return {"run": run, "scenarios": [s.to_json() for s in self.scenarios], "totals": self.totals()}
