"""Verdicts: each scenario's counts, which of them must be zero, and the totals.

A scenario holds when every count it guards is zero; `ProveResult` is a whole prove run
(every strategy's scenarios), and `ProveResult.report()` its `core.report.Report`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.core.findings import Finding
    from agentddl.checks.core.report import Report

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
    guarded: dict[str, str] = field(default_factory=dict)  # count -> what it counts; each must be 0

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
        }


def verdict(
    name: str, strategy: str, counts: Mapping[str, Count], must_be_zero: dict[str, str]
) -> ScenarioResult:
    """The scenario holds when every count in `must_be_zero` is 0; each that is not
    becomes a violation, worded by its description."""
    violations = [
        f"{description}: {counts[key]}" for key, description in must_be_zero.items() if counts.get(key)
    ]
    return ScenarioResult(name, strategy, dict(counts), violations, guarded=dict(must_be_zero))


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

    def findings(self) -> list[Finding]:
        """One error finding per broken scenario, of the rule of its guarantee."""
        from agentddl.checks.prove.rules import finding_of

        return [found for s in self.scenarios if (found := finding_of(s)) is not None]

    def report(self) -> Report:
        """The result for core.report.render (every format)."""
        # Imported here: worker processes import this module, the reporters are the coordinator's.
        from agentddl.checks.prove.report import build_report

        return build_report(self)
