"""What every check reports: one `Finding` type for all five families.

A finding is located either at a source position (a migration's file, line and column:
lint, trace) or at a database object (a schema-qualified name: verify, audit), or both
(trace: the statement at file:line that rewrote `agent.events`). Codes are stable:
ADL lint, ADV verify, ADT trace, ADA audit, ADP prove.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
_SEVERITY_ORDER = {severity: rank for rank, severity in enumerate(SEVERITIES)}


@dataclass(frozen=True)
class Finding:
    code: str  # stable rule code, e.g. ADL101, ADV101
    name: str  # kebab-case rule name, e.g. require-concurrent-index-creation
    severity: Severity
    message: str  # the consequence, one sentence
    fix: str  # the action, one sentence
    file: str | None = None  # source position (lint, trace) ...
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based
    object: str | None = None  # ... and/or the database object, e.g. agent.runs_claim_idx

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def where(self) -> str:
        """`file:line:column`, the object, or both (`file:line:column (object)`)."""
        position = f"{self.file}:{self.line or 1}:{self.column or 1}" if self.file is not None else ""
        if position and self.object:
            return f"{position} ({self.object})"
        return position or self.object or ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape every command prints (all keys always present, null when absent)."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "object": self.object,
            "message": self.message,
            "fix": self.fix,
        }


def sort_key(finding: Finding) -> tuple[Any, ...]:
    """Source findings by position; object findings errors first, then by code and object."""
    return (
        finding.file or "",
        finding.line or 0,
        finding.column or 0,
        _SEVERITY_ORDER[finding.severity],
        finding.code,
        finding.object or "",
        finding.message,
    )


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Diff-friendly order, the same on every run."""
    return sorted(findings, key=sort_key)


def summary_counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {level: sum(1 for f in findings if f.severity == level) for level in SEVERITIES}
