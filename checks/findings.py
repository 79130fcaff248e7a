"""What the live checks (verify, trace, audit) report: one finding about one object.

Lint findings point at a file and line; live findings point at a database object, so
they have their own small type. Codes are stable: ADV1xx verify, ADT1xx trace,
ADA1xx audit (ADL is the linter's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, order=True)
class Finding:
    code: str  # stable rule code, e.g. ADV101
    name: str  # kebab-case rule name, e.g. fk-without-index
    severity: Severity
    object: str  # the schema-qualified object it is about, e.g. agent.runs or agent.runs_claim_idx
    message: str  # the consequence, one sentence
    fix: str  # the action, one line

    @property
    def is_error(self) -> bool:
        return self.severity == "error"
