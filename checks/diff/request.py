"""diff: a request (two profile sources, or a database and a profile) -> the delta."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentddl.checks.diff.result import DiffResult
from agentddl.checks.diff.rules import all_rules
from agentddl.generator.delta import compute_delta
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.revision.source import load_profile_source


@dataclass(frozen=True)
class DiffRequest:
    old: Path | None  # a profile, a revision or a folder of revisions; None with dsn
    new: Path  # the profile to reach
    dsn: str | None = None  # diff from this database's catalog instead of `old`
    server: str | None = None  # where the reference install of `new` goes (dsn mode)


def run(request: DiffRequest) -> DiffResult:
    """The delta from `old` (or the live catalog of `dsn`) to `new`, judged by every rule."""
    new, new_label = load_profile_source(request.new)
    if request.dsn is not None:
        from agentddl.checks.db import describe_dsn
        from agentddl.checks.diff.live import live_delta

        old_label, delta = describe_dsn(request.dsn), live_delta(new, request.dsn, request.server)
    elif request.old is None:
        raise AgentDDLError("diff needs OLD and NEW (profiles, revisions or folders), or --dsn and a profile")
    else:
        old, old_label = load_profile_source(request.old)
        delta = compute_delta(old, new)
    findings = tuple(f for rule in all_rules() for f in rule.judge(delta, request.new))
    return DiffResult(old_label, new_label, new, delta, request.new, findings)
