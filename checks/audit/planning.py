"""Plan every access path with its example values and judge it: one PathResult each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.audit.examples import Samples
from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.generic import generic_plan_findings
from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.rules.path_not_plannable import PathNotPlannable
from agentddl.checks.core.findings import Finding
from agentddl.checks.db import database_error
from agentddl.generator.model import SchemaModel


@dataclass(frozen=True)
class PathResult:
    path: AuditPath
    plan: PlanSummary | None  # None: not plannable (catalog work) or the server refused
    findings: tuple[Finding, ...] = ()
    params: dict[str, object] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not any(f.is_error for f in self.findings)


@dataclass(frozen=True)
class Planner:
    """What planning every path needs, fixed for one audit."""

    model: SchemaModel
    version: int  # the server's major
    limits: Thresholds
    params: dict[str, dict[str, object]]  # path name -> example values

    def plan_all(
        self,
        conn: psycopg.Connection[Any],
        paths: list[AuditPath],
        *,
        analyze: bool,
        catalog: Catalog | None = None,
    ) -> list[PathResult]:
        catalog = catalog or read_catalog(conn, self.model.schema)
        return [self.plan_one(conn, p, catalog, analyze=analyze) for p in paths]

    def plan_one(
        self, conn: psycopg.Connection[Any], path: AuditPath, catalog: Catalog, *, analyze: bool
    ) -> PathResult:
        params = self.params.get(path.name, {})
        if not path.plannable:
            return PathResult(path, None, (), params)
        tenant = self.model.profile.tenancy.column
        request = ExplainRequest(path.sql, params, path.role, params.get(tenant or ""), analyze)
        try:
            summary = summarize(explain(conn, request), catalog, self.version)
        except ExplainError as error:
            failed = PathNotPlannable.finding(
                f"{path.name}{f' ({path.origin})' if path.kind == 'user' else ''} could not be "
                f"planned with its example values: {error}",
                "fix the query or its -- example: values",
                object=path.name,
            )
            return PathResult(path, None, (failed,), params)
        findings = judge(path, summary, catalog, self.limits)
        if analyze and not any(f.is_error for f in findings):  # the full audit, not a re-plan
            tenant_value = params.get(tenant or "")
            findings += generic_plan_findings(conn, path, catalog, self.version, self.limits, tenant_value)
        return PathResult(path, summary, tuple(findings), params)


def example_params(
    conn: psycopg.Connection[Any], model: SchemaModel, paths: list[AuditPath], samples: Samples
) -> dict[str, dict[str, object]]:
    """Each path's parameter values: sampled for generated queries and FK lookups, the
    file's `-- example:` values for users' queries (expressions evaluated here)."""
    tenant = model.profile.tenancy.column
    found: dict[str, dict[str, object]] = {}
    for path in paths:
        if path.kind != "user":
            found[path.name] = samples.for_query(path.name, path.params, tenant, path.table)
            continue
        found[path.name] = {
            p: samples.values[v[1:]] if v.startswith("@") else _evaluate(conn, path, p, v)
            for p, v in path.example_exprs.items()
        }
    return found


def _evaluate(conn: psycopg.Connection[Any], path: AuditPath, param: str, expression: str) -> object:
    """A user's example expression, evaluated in a rolled-back transaction (it was
    checked to be one expression; the user's own SQL, like the query itself)."""
    try:
        with conn.transaction(force_rollback=True):
            row = conn.execute(f"SELECT ({expression})".encode()).fetchone()
    except psycopg.Error as error:
        raise database_error(
            error, f"{path.example_at.get(param, path.origin)}: example {param} = {expression}"
        ) from error
    assert row is not None
    return row[0]
