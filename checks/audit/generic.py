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
from agentddl.checks.audit.judge import PLAN_ERRORS, Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import numbered
from agentddl.checks.audit.plan import Catalog, summarize
from agentddl.checks.audit.rules.generic_plan_not_served import GenericPlanNotServed
from agentddl.checks.core.findings import Finding


def generic_plan_findings(
    conn: psycopg.Connection[Any],
    path: AuditPath,
    catalog: Catalog,
    version: int,
    limits: Thresholds,
    tenant: object | None,
) -> list[Finding]:
    """ADA114 when the generic plan reads a large table without a usable index."""
    if version < 16 or not path.plannable or not path.params:
        return []
    request = ExplainRequest(numbered(path.sql), {}, path.role, tenant, generic=True)
    try:
        plan = summarize(explain(conn, request), catalog, version)
    except ExplainError:
        return []  # e.g. a parameter whose type only its value tells: no generic plan to read
    worse = [f for f in judge(path, plan, catalog, limits) if f.code in PLAN_ERRORS]
    if not worse:
        return []
    return [
        GenericPlanNotServed.finding(
            f"{path.name}'s generic plan (prepared statements may switch to it) is "
            f"{plan.main_node(path.table)}: {worse[0].message}",
            "keep plan_cache_mode = force_custom_plan for this statement, or an index the "
            "generic plan can use (no predicate a parameter decides)",
            object=path.name,
        )
    ]
