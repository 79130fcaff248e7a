"""Findings from what was observed: every trace rule (checks/trace/rules/) on every
statement's trace, in statement order."""

from __future__ import annotations

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.observed import Limits, Observed
from agentddl.checks.trace.rules import all_rules
from agentddl.checks.trace.types import StatementTrace


def judge(traces: list[StatementTrace], existing: set[str], limits: Limits) -> list[Finding]:
    """Every finding of every statement, in statement order (by code within one)."""
    rules = [rule() for rule in all_rules()]
    observed = [Observed(trace, existing, limits) for trace in traces]
    return [finding for seen in observed for rule in rules for finding in rule.check(seen)]
