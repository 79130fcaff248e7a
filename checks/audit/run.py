"""One audit of a seeded database: plans, hygiene, workload redundancy, suggestions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.audit.examples import read_samples
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.hygiene import hygiene_findings
from agentddl.checks.audit.judge import Thresholds
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.planning import PathResult, Planner, example_params
from agentddl.checks.audit.suggest import Suggestion, suggest
from agentddl.checks.audit.workload import Impact, redundant_indexes
from agentddl.checks.core.findings import Finding
from agentddl.generator.model import SchemaModel


@dataclass(frozen=True)
class AuditOptions:
    limits: Thresholds = field(default_factory=Thresholds)
    analyze: bool = True  # EXPLAIN ANALYZE, BUFFERS (in rolled-back transactions)
    workload: bool = True  # drop-and-replan every index (redundancy)
    hypopg: bool = False  # verify suggestions with hypothetical indexes


@dataclass(frozen=True)
class AuditResult:
    server_version: int
    paths: tuple[PathResult, ...]
    hygiene: tuple[Finding, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    impacts: tuple[Impact, ...] = ()
    regressions: tuple[Finding, ...] = ()  # against a baseline
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)  # seeding figures etc., for reports

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.paths for f in r.findings] + list(self.hygiene) + list(self.regressions)

    @property
    def failed_paths(self) -> list[str]:
        return [r.path.name for r in self.paths if not r.passed]

    @property
    def regressed_paths(self) -> list[str]:
        """Paths a baseline comparison failed (lost an index, or cost grew)."""
        return list(dict.fromkeys(f.object for f in self.regressions if f.is_error))

    @property
    def passed(self) -> bool:
        return not any(f.is_error for f in self.findings)


def audit_database(
    conn: psycopg.Connection[Any], model: SchemaModel, paths: list[AuditPath], options: AuditOptions
) -> AuditResult:
    """Audit the schema in conn's database (already seeded and analyzed)."""
    started = time.perf_counter()
    version = conn.info.server_version // 10000
    catalog = read_catalog(conn, model.schema)
    params = example_params(conn, model, paths, read_samples(conn, model))
    planner = Planner(model, version, options.limits, params)
    results = planner.plan_all(conn, paths, analyze=options.analyze, catalog=catalog)
    fk_indexes = frozenset(
        i for r in results if r.path.kind == "constraint" and r.plan for i in r.plan.indexes
    )
    hygiene = hygiene_findings(conn, model, catalog, results, fk_indexes)
    impacts: list[Impact] = []
    if options.workload:
        plain = {r.path.name: r for r in planner.plan_all(conn, paths, analyze=False, catalog=catalog)}
        redundant, impacts = redundant_indexes(conn, planner, paths, plain, catalog)
        hygiene += redundant
    suggestions = [
        s
        for r in results
        if not r.passed
        if (s := suggest(conn, planner, r, catalog, options.hypopg)) is not None
    ]
    return AuditResult(
        version,
        tuple(results),
        tuple(hygiene),
        tuple(suggestions),
        tuple(impacts),
        seconds=time.perf_counter() - started,
    )
