"""What an audit found: every path's plan and findings, index hygiene, suggestions,
baseline regressions. Plain data: `report.build_report(result)` is the one Report every
output format renders."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.checks.audit.candidate import Suggestion
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.workload import Impact
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.rules import Rule
from agentddl.checks.db.seed import SeedStats


@dataclass(frozen=True)
class InPlace:
    """An audit of a database in place (`audit --dsn`): what was audited, and what
    judged the what-if questions."""

    target: str  # host:port/dbname
    schema: str
    redundancy: str  # what judged "redundant for the workload" ('' not judged)
    suggestions: str  # what verified the suggested indexes
    note: str = ""  # why a what-if method was missing


@dataclass(frozen=True)
class AuditResult:
    server_version: int
    paths: tuple[PathResult, ...]
    hygiene: tuple[Finding, ...] = ()  # index findings: the catalog checks' and the workload's
    suggestions: tuple[Suggestion, ...] = ()
    impacts: tuple[Impact, ...] = ()
    regressions: tuple[Finding, ...] = ()  # against a baseline
    seconds: float = 0.0  # planning and judging (not seeding)
    seed: SeedStats | None = None  # the scratch database's seeding (None: seeded by the caller)
    hypopg: bool = False  # suggestions were verified with hypothetical indexes
    catalog_rules: tuple[type[Rule], ...] = ()  # the rules of the injected catalog checks
    in_place: InPlace | None = None  # None: a scratch database the audit (or its caller) seeded

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.paths for f in r.findings] + list(self.hygiene) + list(self.regressions)

    @property
    def failed_paths(self) -> list[str]:
        return [r.path.name for r in self.paths if not r.passed]

    @property
    def regressed_paths(self) -> list[str]:
        """Paths a baseline comparison failed (lost an index, or cost grew)."""
        return list(dict.fromkeys(f.object or "" for f in self.regressions if f.is_error))

    @property
    def passed(self) -> bool:
        return not any(f.is_error for f in self.findings)

    def failure(self) -> str:
        """Why the audit failed, in one line ('' when it passed)."""
        if self.passed:
            return ""
        if failed := self.failed_paths:
            return f"{len(failed)} access path(s) not served: {', '.join(failed)}"
        if regressed := self.regressed_paths:
            return f"{len(regressed)} access path(s) regressed against the baseline: {', '.join(regressed)}"
        return "error findings (see above)"
