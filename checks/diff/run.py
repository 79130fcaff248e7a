"""diff: a request (two profile sources, or a database and a profile) -> the delta."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report
from agentddl.checks.diff.locks import declared_mode, parsed_mode
from agentddl.checks.diff.rules import ChangeNotOnline
from agentddl.generator.delta import Delta, compute_delta
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import Profile
from agentddl.generator.profile.load import locate_key
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
    new_path: Path | None = None  # the new profile's file, where refusals are located

    def findings(self) -> list[Finding]:
        """One ADC101 per refused change, at its key in the new profile when it is a file."""
        text = _profile_text(self.new_path)
        found = []
        for refusal in self.delta.refusals:
            message = f"{refusal.change}: cannot be changed online: {refusal.reason}"
            fix = "Make it in steps: " + " ".join(f"{n}. {s}" for n, s in enumerate(refusal.plan, start=1))
            if text is None or self.new_path is None:
                found.append(ChangeNotOnline.finding(message, fix, object=refusal.key))
                continue
            line, column = locate_key(text, refusal.key)
            found.append(
                ChangeNotOnline.finding(message, fix, file=str(self.new_path), line=line, column=column)
            )
        return found

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
            describe_dsn(request.dsn),
            new_label,
            new,
            live_delta(new, request.dsn, request.server),
            request.new,
        )
    if request.old is None:
        raise AgentDDLError("diff needs OLD and NEW (profiles, revisions or folders), or --dsn and a profile")
    old, old_label = load_profile_source(request.old)
    return DiffResult(old_label, new_label, new, compute_delta(old, new), request.new)


def _profile_text(path: Path | None) -> str | None:
    """The new profile's text when it is a profile file (not a revision or a folder)."""
    if path is None or not path.is_file() or path.suffix == ".py":
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
