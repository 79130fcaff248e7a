"""PostgreSQL 16+: the generic plan a prepared statement may switch to.

Drivers prepare a statement after a few executions (psycopg: 5) and the server then
may plan it once for any parameter values (plan_cache_mode = auto picks the generic
plan when it is not costlier than the custom ones so far). A generic plan can't prune
partitions by a parameter at planning time (it prunes at executor start) and can't use
a partial index whose predicate a parameter decides. EXPLAIN (GENERIC_PLAN), new in 16,
shows it without executing; earlier servers have no such option and are not judged.
"""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import numbered
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.core.findings import Finding


class GenericPlanRule(AuditRule):
    """A verdict on the generic plan of a path that passed with its values."""

    def check(self, path: AuditPath, plan: PlanSummary, judged: list[Finding]) -> Finding | None:
        """`judged`: the plan rules' findings on the generic plan."""
        raise NotImplementedError


def generic_plan_findings(
    conn: psycopg.Connection[Any],
    path: AuditPath,
    catalog: Catalog,
    version: int,
    limits: Thresholds,
    tenant: object | None,
) -> list[Finding]:
    """Every generic-plan rule's verdict on the path's generic plan (16+ only)."""
    if version < 16 or not path.plannable or not path.params:
        return []
    request = ExplainRequest(numbered(path.sql), {}, path.role, tenant, generic=True)
    try:
        plan = summarize(explain(conn, request), catalog, version)
    except ExplainError:
        return []  # e.g. a parameter whose type only its value tells: no generic plan to read
    judged = judge(path, plan, catalog, limits)
    return [found for rule in rules_of(GenericPlanRule) if (found := rule.check(path, plan, judged))]
