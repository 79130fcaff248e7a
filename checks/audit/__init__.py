"""`agentddl audit`: every access path served by an index (EXPLAIN).

Library use: `run(AuditRequest(model, ...)) -> AuditResult`, and `build_report(result)`
for any output format (`agentddl.checks.core.report.render`). With `dsn` the database is
audited in place, read-only, on its own data (`inplace`; `model` may be None); without,
the profile's schema is seeded to volume in a scratch database. `audit_database` audits
a database the caller has already seeded. The rules: `agentddl.checks.audit.rules`.
The names below are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentddl.checks.audit.database import AuditOptions, audit_database
    from agentddl.checks.audit.report import build_report
    from agentddl.checks.audit.result import AuditResult
    from agentddl.checks.audit.session import AuditRequest, run

_HOMES = {
    "AuditOptions": "database",
    "audit_database": "database",
    "build_report": "report",
    "AuditResult": "result",
    "AuditRequest": "session",
    "run": "session",
}
__all__ = ["AuditOptions", "AuditRequest", "AuditResult", "audit_database", "build_report", "run"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
