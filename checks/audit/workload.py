"""Indexes judged against the workload: drop one inside a transaction that is rolled
back, re-plan every path, compare. Works on any server, no extension needed.

An index is redundant for the workload when, without it, every path still passes with
the same findings and a cost within COST_SLACK of its plan with the index. The same
machinery tells which paths lose when an index goes (`drop_impact`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult, Planner
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.progress import Progress, silent

COST_SLACK = 1.10  # a plan 10% costlier (plus one page) without the index counts as "as good"
# In a sample clone, a lookup through an equivalent index (a prefix's wider twin) can
# plan at 9 or at 24: both a few pages. "As good" there allows a few page reads more.
CLONE_EXTRA_COST = 30.0


@dataclass(frozen=True)
class Impact:
    index: str
    lost: tuple[str, ...]  # paths that fail (or newly fail) without it
    costlier: tuple[str, ...]  # paths that still pass but cost more than COST_SLACK
    after: dict[str, PathResult] = field(default_factory=dict, compare=False, repr=False)


class WorkloadRule(AuditRule):
    """A verdict on an index from the paths re-planned without it."""

    def check(self, impact: Impact, catalog: Catalog) -> Finding | None:
        """`impact`: every path planned with the index dropped in a rolled-back transaction."""
        raise NotImplementedError

    def not_needed(self, catalog: Catalog, index: str, judged_in: str) -> Finding:
        """`index`, which the greedy drop in `judged_in` (a clone) found the workload does without."""
        raise NotImplementedError


def drop_impact(
    conn: psycopg.Connection[Any],
    planner: Planner,
    paths: list[AuditPath],
    index: str,
    before: dict[str, PathResult],
    catalog: Catalog,
) -> Impact:
    """Plan every path without `index` (dropped in a rolled-back transaction)."""
    with conn.transaction(force_rollback=True):
        _drop(conn, planner.schema, index, catalog)
        without = read_catalog(conn, planner.schema)
        after = planner.plan_all(conn, paths, analyze=False, catalog=without)
    return _compared(index, before, after)


def _compared(
    index: str, before: dict[str, PathResult], after: list[PathResult], extra: float = 1.0
) -> Impact:
    lost, costlier = [], []
    for result in after:
        earlier = before[result.path.name]
        if _errors(result) - _errors(earlier):
            lost.append(result.path.name)
        elif result.plan and earlier.plan and result.plan.cost > earlier.plan.cost * COST_SLACK + extra:
            costlier.append(result.path.name)
    return Impact(index, tuple(lost), tuple(costlier), {r.path.name: r for r in after})


def _errors(result: PathResult) -> set[str]:
    return {f.code for f in result.findings if f.is_error}


def greedy_redundant(
    conn: psycopg.Connection[Any],
    planner: Planner,
    paths: list[AuditPath],
    catalog: Catalog,
    candidates: list[str],
    progress: Progress = silent,
) -> tuple[list[str], list[Impact]]:
    """In place, in a scratch clone: the candidates the workload can do without. Each is
    dropped on top of the earlier ones that left every path as good (one rolled-back
    transaction), so of two indexes that serve the same paths one goes, never both:
    the first in `candidates` order (the caller puts the narrower first)."""
    before = {r.path.name: r for r in planner.plan_all(conn, paths, analyze=False, catalog=catalog)}
    droppable, impacts = [], []
    with conn.transaction(force_rollback=True):
        for n, index in enumerate(candidates, 1):
            progress(f"workload: without {index} ({n}/{len(candidates)})")
            impact = _without(conn, planner, paths, index, before, catalog)
            if impact is None:
                continue
            impacts.append(impact)
            if not impact.lost and not impact.costlier:
                droppable.append(index)
    return droppable, impacts


def redundant_finding(catalog: Catalog, index: str, judged_in: str) -> list[Finding]:
    """Every workload rule's verdict on an index the greedy drop found the workload does without."""
    return [rule.not_needed(catalog, index, judged_in) for rule in rules_of(WorkloadRule)]


def _without(
    conn: psycopg.Connection[Any],
    planner: Planner,
    paths: list[AuditPath],
    index: str,
    before: dict[str, PathResult],
    catalog: Catalog,
) -> Impact | None:
    """Drop `index` in a savepoint and re-plan: kept dropped when nothing got worse,
    rolled back otherwise. None when the drop is refused."""
    impact: Impact | None = None
    try:
        with conn.transaction() as savepoint:
            _drop(conn, planner.schema, index, catalog)
            after = planner.plan_all(conn, paths, analyze=False, catalog=read_catalog(conn, planner.schema))
            impact = _compared(index, before, after, CLONE_EXTRA_COST)
            if impact.lost or impact.costlier:
                raise psycopg.Rollback(savepoint)
    except psycopg.Error:
        return None
    return impact


def _drop(conn: psycopg.Connection[Any], schema: str, index: str, catalog: Catalog) -> None:
    """DROP INDEX, or the constraint that owns it (CASCADE: FKs that need it go too)."""
    if index in catalog.constraint_indexes:
        table = catalog.index_table[index]
        conn.execute(
            sql.SQL("ALTER TABLE {}.{} DROP CONSTRAINT {} CASCADE").format(
                sql.Identifier(schema), sql.Identifier(table), sql.Identifier(index)
            )
        )
    else:
        conn.execute(
            sql.SQL("DROP INDEX {}.{} CASCADE").format(sql.Identifier(schema), sql.Identifier(index))
        )


def redundant_indexes(
    conn: psycopg.Connection[Any],
    planner: Planner,
    paths: list[AuditPath],
    before: dict[str, PathResult],
    catalog: Catalog,
    progress: Progress = silent,
) -> tuple[list[Finding], list[Impact]]:
    """Every workload rule's verdict on each index (not enforcing uniqueness) on a large
    table, dropped (on a small table every plan is cheap: nothing to judge)."""
    findings, impacts = [], []
    rules = rules_of(WorkloadRule)
    candidates = [
        index
        for index in sorted(catalog.index_table)
        # uniqueness is a constraint, not a workload question
        if index not in catalog.unique
        and catalog.rows.get(catalog.index_table[index], 0.0) >= planner.limits.large_rows
    ]
    for n, index in enumerate(candidates, 1):
        progress(f"workload: without {index} ({n}/{len(candidates)})")
        impact = drop_impact(conn, planner, paths, index, before, catalog)
        impacts.append(impact)
        findings += [found for rule in rules if (found := rule.check(impact, catalog)) is not None]
    return findings, impacts
