"""`Report`: what every reporter reads, the same shape for every command."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from agentddl.checks.core.findings import SEVERITIES, Finding, sorted_findings, summary_counts
from agentddl.checks.core.rules import Rule, docs_path


@dataclass(frozen=True)
class Report:
    """One command's result as reporters print it.

    JSON is `{"tool", **about, **details, "findings": [...], "summary": {error, warning,
    info}}` for every command: `about` says what was checked (text shows it as header
    lines), `details` is the command's own data (trace's statements, audit's paths).
    """

    tool: str  # the command: lint, verify, trace, audit, prove, apply
    findings: Sequence[Finding]
    rules: Sequence[type[Rule]] = ()  # the rules that could report here: SARIF's driver, docs links
    about: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)  # file -> text, to show a finding's line
    # The command's own tables, printed before the findings (text) or above them (markdown).
    text_body: Callable[[Console], None] | None = None
    markdown_body: Callable[[], str] | None = None
    summary: str | None = None  # the closing line of text/markdown; default: counts per severity
    failed: bool | None = None  # None: failed when any finding is an error
    errors_first: bool = False  # order by severity first (a gate's PR comment), then by position

    @property
    def ordered(self) -> list[Finding]:
        ordered = sorted_findings(self.findings)
        return sorted(ordered, key=lambda f: SEVERITIES.index(f.severity)) if self.errors_first else ordered

    @property
    def counts(self) -> dict[str, int]:
        return summary_counts(self.findings)

    @property
    def exit_code(self) -> int:
        """0 clean (warnings and info allowed), 1 when the check failed."""
        failed = self.failed if self.failed is not None else any(f.is_error for f in self.findings)
        return 1 if failed else 0

    def summary_line(self) -> str:
        if self.summary is not None:
            return self.summary
        if not self.findings:
            return f"{self.tool}: no findings."
        counts = self.counts
        return (
            f"{self.tool}: {counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} info."
        )

    def rule_docs(self) -> dict[str, str]:
        """code -> docs page of every rule this report knows."""

        return {rule.code: docs_path(rule) for rule in self.rules}
