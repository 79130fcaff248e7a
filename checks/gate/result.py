"""What one `agentddl check` found: each step's own report (or why it did not run), and
the gate's verdict over them. Plain data: `report.build_report(result)` is what the
reporters print."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report

STEPS = ("lint", "trace", "verify", "audit")


@dataclass(frozen=True)
class StepResult:
    """One step: the report its family built, or the reason it was skipped."""

    step: str  # one of STEPS
    report: Report | None = None  # None: skipped
    skipped: str = ""  # why it did not run
    note: str = ""  # what the gate left out of the family's findings, and why

    @property
    def findings(self) -> list[Finding]:
        return list(self.report.findings) if self.report is not None else []

    @property
    def verdict(self) -> str:
        """held (no error), failed (an error finding, or the family's own failure), skipped."""
        if self.report is None:
            return "skipped"
        return "failed" if self.report.exit_code else "held"

    def summary(self) -> str:
        if self.report is None:
            return self.skipped
        line = self.report.summary_line().removeprefix(f"{self.report.tool}: ")
        return f"{line} ({self.note})" if self.note else line

    def line(self) -> str:
        """The step's verdict in one line."""
        return f"{self.step}: {self.verdict}: {self.summary()}"

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"step": self.step, "verdict": self.verdict, "summary": self.summary()}
        if self.report is not None:
            found["about"] = dict(self.report.about)
            found["details"] = dict(self.report.details)
            found["counts"] = self.report.counts
            found["findings"] = [f.as_dict() for f in self.report.ordered]
        return found


@dataclass(frozen=True)
class CheckResult:
    """Every step in order (lint, trace, verify, audit) and what was checked."""

    steps: tuple[StepResult, ...]
    about: Mapping[str, Any] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        return [finding for step in self.steps for finding in step.findings]

    @property
    def failed(self) -> bool:
        return any(step.verdict == "failed" for step in self.steps)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def summary_line(self) -> str:
        ran = [step for step in self.steps if step.report is not None]
        failed = [step.step for step in ran if step.verdict == "failed"]
        counts = f"{len(ran)} of {len(self.steps)} steps ran"
        if failed:
            return f"check: failed ({', '.join(failed)}); {counts}."
        return f"check: every step held; {counts}."
