"""What prove found, as plain data: each scenario's counts, which of them it guards (each
must be zero) and what broke, and the totals of a whole run.

A scenario holds when every count it guards is zero; `ProveResult` is a whole prove run
(every strategy's scenarios). `prove.report.build_report` turns it into the core `Report`.
"""

from __future__ import annotations

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
WORKER_FAILURE = "worker failure: "  # a violation that is a worker's last traceback line, not a count


@dataclass
class ScenarioResult:
    name: str
    strategy: str
    counts: dict[str, Count]
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    guarded: dict[str, str] = field(default_factory=dict)  # count -> what it counts; each must be 0
    series: list[dict[str, Any]] = field(default_factory=list)  # the soak's rows, one per minute

    @property
    def held(self) -> bool:
        return not self.violations

    @property
    def broken_counts(self) -> dict[str, Count]:
        """The guarded counts that are not zero (what broke, by name)."""
        return {key: self.counts[key] for key in self.guarded if self.counts.get(key)}

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "strategy": self.strategy,
            "held": self.held,
            **self.counts,
            "violations": self.violations,
            "seconds": round(self.seconds, 2),
            **({"minutes": self.series} if self.series else {}),
        }


@dataclass
class ProveResult:
    """What one prove run found: every scenario of every strategy proven."""

    scenarios: list[ScenarioResult]
    seconds: float
    run: dict[str, Any]  # what was proven: profile, strategies, server, workers, runs

    @property
    def held(self) -> bool:
        return all(s.held for s in self.scenarios)

    @property
    def broken(self) -> list[str]:
        """`strategy/scenario` of every scenario that broke."""
        return [f"{s.strategy}/{s.name}" for s in self.scenarios if not s.held]

    def totals(self) -> dict[str, Any]:
        found: dict[str, Any] = {k: sum(int(s.counts.get(k, 0)) for s in self.scenarios) for k in TOTAL_KEYS}
        found["seconds"] = round(self.seconds, 2)
        return found

    def run_facts(self) -> dict[str, Any]:
        """What was proven, with the rate of the whole run (every run completed over the
        whole time, setup and lease waits included)."""
        completed = self.totals()["runs_completed"]
        rate = round(completed / self.seconds, 1) if self.seconds else 0.0
        return {**self.run, "runs_per_second": rate}

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run_facts(),
            "scenarios": [s.to_json() for s in self.scenarios],
            "totals": self.totals(),
        }
