"""diff: a request (two profile sources, or a database and a profile) -> the delta."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentddl.checks.core.report import Report
from agentddl.checks.diff.locks import declared_mode, parsed_mode
from agentddl.generator.delta import Delta, compute_delta
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import Profile
from agentddl.generator.revision.source import load_profile_source


@dataclass(frozen=True)
class DiffRequest:
    old: Path | None  # a profile, a revision or a folder of revisions; None with dsn
    new: Path  # the profile to reach
    dsn: str | None = None  # diff from this database's catalog instead of `old`
    server: str | None = None  # where the reference install of `new` goes (dsn mode)


@dataclass(frozen=True)
class DiffResult:
    old: str  # what the delta starts from
    new: str
    profile: Profile
    delta: Delta

    def report(self) -> Report:
        from agentddl.checks.diff.report import diff_report

        return diff_report(self)

    def step_rows(self) -> list[dict[str, Any]]:
        """Each step as JSON: the generator's facts plus what the lock blocks."""
        rows = []
        for number, step in enumerate(self.delta.steps, start=1):
            mode = declared_mode(step)
            parsed = parsed_mode(step, self.profile.engine.version)
            rows.append(
                {
                    "number": number,
                    **step.as_dict(),
                    "blocks_writes": bool(mode and mode.blocks_writes()),
                    "blocks_reads": bool(mode and mode.blocks_reads()),
                    "lock_parsed": str(parsed) if parsed else None,
                }
            )
        return rows


def run(request: DiffRequest) -> DiffResult:
    new, new_label = load_profile_source(request.new)
    if request.dsn is not None:
        from agentddl.checks.db import describe_dsn
        from agentddl.checks.diff.live import live_delta

        return DiffResult(
            describe_dsn(request.dsn), new_label, new, live_delta(new, request.dsn, request.server)
        )
    if request.old is None:
        raise AgentDDLError("diff needs OLD and NEW (profiles, revisions or folders), or --dsn and a profile")
    old, old_label = load_profile_source(request.old)
    return DiffResult(old_label, new_label, new, compute_delta(old, new))
