"""Plan every access path with its parameter values and judge it: one PathResult each.

How a path is planned, said in its result's `method`:
- `EXPLAIN ANALYZE`: executed (a scratch database's writes and every read; in place,
  reads only, and writes with --analyze-writes), in a transaction that is rolled back;
- `EXPLAIN`: planned only (re-plans, --no-analyze; a read that would write, a volatile
  function the read-only session refuses; a statement that ran past statement_timeout);
- `EXPLAIN (GENERIC_PLAN)`: PostgreSQL 16+, for a path with a parameter that has no
  example and no column to sample a value from;
- `... of its read part`: in place, the SELECT that finds the rows a write changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import psycopg

from agentddl.checks.audit.examples import Samples
from agentddl.checks.audit.explain import ExplainError, ExplainRequest, explain
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.generic import generic_plan_findings
from agentddl.checks.audit.judge import Thresholds, judge
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.placeholders import numbered
from agentddl.checks.audit.plan import Catalog, PlanSummary, summarize
from agentddl.checks.audit.rules import AuditRule, rules_of
from agentddl.checks.audit.sampling import Sampler
from agentddl.checks.core.findings import Finding
from agentddl.checks.db import database_error
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

# Running a statement under ANALYZE failed; its plan is still read (EXPLAIN alone)
PLAN_ONLY_AFTER = {
    "25006": "it would write",  # read_only_sql_transaction
    "57014": "it ran past statement_timeout",  # query_canceled
}
MODEL_ORIGINS = ("queries.sql", "fk")  # the profile's paths: their values are the model's samples


class UnplannedRule(AuditRule):
    """A verdict on a path the server gave no plan for."""

    def without_value(self, path: AuditPath, param: str, version: int) -> Finding:
        """`param` has no value and the server (before 16) no generic plan to read."""
        raise NotImplementedError

    def refused(self, path: AuditPath, error: ExplainError) -> Finding:
        """EXPLAIN failed with the path's values."""
        raise NotImplementedError


@dataclass(frozen=True)
class PathResult:
    path: AuditPath
    plan: PlanSummary | None  # None: not plannable (catalog work) or the server refused
    findings: tuple[Finding, ...] = ()
    params: dict[str, object] = field(default_factory=dict)
    method: str = ""  # how the plan was read (see the module docstring)

    @property
    def passed(self) -> bool:
        return not any(f.is_error for f in self.findings)


def located(result: PathResult) -> PathResult:
    """The result with its findings at the path's file:line (a query from a file)."""
    return replace(result, findings=result.path.located(result.findings))


@dataclass(frozen=True)
class Planner:
    """What planning every path needs, fixed for one audit."""

    model: SchemaModel | None  # None: a database agentddl did not generate (in place)
    version: int  # the server's major
    limits: Thresholds
    params: dict[str, dict[str, object]]  # path name -> parameter values
    schema_name: str = ""  # the audited schema, when there is no model
    # --analyze-writes: the read-write session a write runs in (rolled back)
    writer: psycopg.Connection[Any] | None = field(default=None, compare=False)

    @property
    def schema(self) -> str:
        return self.model.schema if self.model is not None else self.schema_name

    @property
    def tenant_column(self) -> str | None:
        return self.model.profile.tenancy.column if self.model is not None else None

    def plan_all(
        self,
        conn: psycopg.Connection[Any],
        paths: list[AuditPath],
        *,
        analyze: bool,
        catalog: Catalog | None = None,
    ) -> list[PathResult]:
        catalog = catalog or read_catalog(conn, self.schema)
        return [located(self.plan_one(conn, p, catalog, analyze=analyze)) for p in paths]

    def plan_one(
        self, conn: psycopg.Connection[Any], path: AuditPath, catalog: Catalog, *, analyze: bool
    ) -> PathResult:
        params = self.params.get(path.name, {})
        if not path.plannable:
            return PathResult(path, None, (), params)
        missing = [p for p in path.params if p not in params]
        if missing and self.version < 16:
            unplanned = (r.without_value(path, missing[0], self.version) for r in rules_of(UnplannedRule))
            return PathResult(path, None, tuple(unplanned), params)
        try:
            summary, method = self._explain(conn, path, params, catalog, analyze and not missing)
        except ExplainError as error:
            refused = (r.refused(path, error) for r in rules_of(UnplannedRule))
            return PathResult(path, None, tuple(refused), params)
        if missing:
            method = "EXPLAIN (GENERIC_PLAN)"
        if path.written is not None:
            method += f" of its read part (the {path.written.split()[0].upper()} is not run)"
        findings = judge(path, summary, catalog, self.limits)
        if summary.actual_ms is not None and not any(f.is_error for f in findings):  # not a re-plan
            tenant_value = params.get(self.tenant_column or "")
            findings += generic_plan_findings(conn, path, catalog, self.version, self.limits, tenant_value)
        return PathResult(path, summary, tuple(findings), params, method)

    def _explain(
        self,
        conn: psycopg.Connection[Any],
        path: AuditPath,
        params: dict[str, object],
        catalog: Catalog,
        analyze: bool,
    ) -> tuple[PlanSummary, str]:
        tenant = params.get(self.tenant_column or "")
        generic = any(p not in params for p in path.params)
        sql = numbered(path.sql) if generic else path.sql
        request = ExplainRequest(sql, {} if generic else params, path.role, tenant, analyze, generic)
        if path.writes and path.written is None and self.writer is not None:
            conn = self.writer  # --analyze-writes: run it, rolled back
        try:
            document = explain(conn, request)
        except ExplainError as error:
            ran_write = conn is self.writer
            if not analyze or (error.sqlstate not in PLAN_ONLY_AFTER and not ran_write):
                raise
            # a read that would write (a volatile function) or ran past statement_timeout,
            # a write that failed when run (its sampled row still referenced): planned only
            why = PLAN_ONLY_AFTER.get(error.sqlstate or "") or f"running it failed: {error}"
            request = ExplainRequest(sql, params, path.role, tenant, analyze=False)
            return summarize(explain(conn, request), catalog, self.version), f"EXPLAIN ({why})"
        return summarize(document, catalog, self.version), "EXPLAIN ANALYZE" if analyze else "EXPLAIN"


def example_params(
    conn: psycopg.Connection[Any],
    model: SchemaModel | None,
    paths: list[AuditPath],
    samples: Samples | None,
    sampler: Sampler | None = None,
) -> dict[str, dict[str, object]]:
    """Each path's parameter values: for generated queries and FK lookups the model's
    samples, for users' queries their `-- example:` values (expressions evaluated here),
    and for any parameter still without one a value sampled from its column."""
    tenant = model.profile.tenancy.column if model is not None else None
    found: dict[str, dict[str, object]] = {}
    for path in paths:
        if path.origin in MODEL_ORIGINS and samples is not None:
            found[path.name] = samples.for_query(path.name, path.params, tenant, path.table)
            continue
        given = {p: _given(conn, path, p, v, samples) for p, v in path.example_exprs.items()}
        found[path.name] = given | (sampler.values(path, given) if sampler is not None else {})
    return found


def _given(
    conn: psycopg.Connection[Any], path: AuditPath, param: str, value: str, samples: Samples | None
) -> object:
    if not value.startswith("@"):
        return _evaluate(conn, path, param, value)
    if samples is None or value[1:] not in samples.values:
        raise AgentDDLError(
            f"{path.example_at.get(param, path.origin)}: {value} is a sample of an agentddl schema "
            "(--profile): give a value or a SQL expression"
        )
    return samples.values[value[1:]]


def _evaluate(conn: psycopg.Connection[Any], path: AuditPath, param: str, expression: str) -> object:
    """A user's example expression, evaluated in a rolled-back transaction (it was
    checked to be one expression; the user's own SQL, like the query itself)."""
    try:
        with conn.transaction(force_rollback=True):
            # the comment keeps it out of --from-stats' workload
            row = conn.execute(f"/* agentddl */ SELECT ({expression})".encode()).fetchone()
    except psycopg.Error as error:
        raise database_error(
            error, f"{path.example_at.get(param, path.origin)}: example {param} = {expression}"
        ) from error
    assert row is not None
    return row[0]
