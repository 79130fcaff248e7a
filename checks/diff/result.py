"""What a diff found: the delta from one schema to another and the rules' findings on it.
Plain data: `report.build_report(result)` is its `core.report.Report`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentddl.checks.core.findings import Finding
from agentddl.generator.delta import Delta
from agentddl.generator.profile import Profile


@dataclass(frozen=True)
class DiffResult:
    old: str  # what the delta starts from
    new: str
    profile: Profile
    delta: Delta
    new_path: Path | None = None  # the new profile's file, where refusals are located
    findings: tuple[Finding, ...] = ()  # the rules' judgement of the delta (ADC101 per refusal)
