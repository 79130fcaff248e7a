"""The result of a lint run, as every reporter reads it."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentddl.checks.lint.types import Finding

DOCS_BASE = "docs/rules"


@dataclass
class LintReport:
    """Findings of every file linted, plus each file's text for showing context."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    sources: dict[str, str] = field(default_factory=dict)  # file -> text the lines refer to

    def add(self, file: str, text: str, findings: list[Finding]) -> None:
        """Record one linted file."""
        self.files += 1
        self.sources[file] = text
        self.findings.extend(findings)

    @property
    def exit_code(self) -> int:
        """0 when clean (or only warnings/info), 1 with any error-severity finding."""
        return 1 if any(f.severity == "error" for f in self.findings) else 0


def docs_link(rule: str) -> str:
    """Where a rule's documentation lives, relative to the repository root."""
    return f"{DOCS_BASE}/{rule}.md"
