"""`agentddl trace`: what a migration really locks, rewrites and blocks on a real server.

    result = run(TraceRequest(migrations=[Path("0007.sql")], schema_files=[Path("schema.sql")]))
    render(build_report(result), "text", sys.stdout)   # agentddl.checks.core.report.render

Findings come from the rules in `agentddl.checks.trace.rules` (ADT1xx).
"""

from agentddl.checks.trace.observed import Limits
from agentddl.checks.trace.report import build_report
from agentddl.checks.trace.request import TraceRequest, run
from agentddl.checks.trace.result import TraceResult

__all__ = ["Limits", "TraceRequest", "TraceResult", "build_report", "run"]
