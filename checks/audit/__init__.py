"""`agentddl audit`: every access path served by an index at realistic volume (EXPLAIN).

Library use: `run(AuditRequest(model, ...)) -> AuditResult`, and `result.report()` for
any output format (`agentddl.checks.core.report.render`). `audit_database` audits a
database the caller has already seeded. The rules: `agentddl.checks.audit.rules`.
"""

from agentddl.checks.audit.database import AuditOptions, audit_database
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.session import AuditRequest, run

__all__ = ["AuditOptions", "AuditRequest", "AuditResult", "audit_database", "run"]
