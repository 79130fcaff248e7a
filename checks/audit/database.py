"""One audit of a seeded database: plans, hygiene, workload redundancy, suggestions."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.audit.candidate import Suggestion
from agentddl.checks.audit.examples import read_samples
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.fkactions import with_model_fk_actions
from agentddl.checks.audit.hygiene import CatalogCheck, hygiene_findings
from agentddl.checks.audit.judge import Thresholds
from agentddl.checks.audit.paths import AuditPath
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult, Planner, example_params
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.sampling import Sampler
from agentddl.checks.audit.suggest import suggest
from agentddl.checks.audit.workload import Impact, redundant_indexes
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.core.rules import Rule
from agentddl.generator.model import SchemaModel


@dataclass(frozen=True)
class AuditOptions:
    limits: Thresholds = field(default_factory=Thresholds)
    analyze: bool = True  # EXPLAIN ANALYZE, BUFFERS (in rolled-back transactions)
    workload: bool = True  # drop-and-replan every index (redundancy)
    hypopg: bool = False  # verify suggestions with hypothetical indexes
    # Catalog-only index checks (audit.run passes the shared index rules ADV101-ADV104,
    # catalog_rules.indexes), and the rules they report, for SARIF's driver and docs links.
    catalog_checks: Sequence[CatalogCheck] = ()
    catalog_rules: Sequence[type[Rule]] = ()


def audit_database(
    conn: psycopg.Connection[Any],
    model: SchemaModel,
    paths: list[AuditPath],
    options: AuditOptions,
    progress: Progress = silent,
) -> AuditResult:
    """Audit the schema in conn's database (already seeded and analyzed)."""
    started = time.perf_counter()
    version = conn.info.server_version // 10000
    catalog = read_catalog(conn, model.schema)
    params = example_params(conn, model, paths, read_samples(conn, model), Sampler(conn, catalog))
    planner = Planner(model, version, options.limits, params)
    progress(f"planning: {len(paths)} access paths" + (" (EXPLAIN ANALYZE)" if options.analyze else ""))
    planned = planner.plan_all(conn, paths, analyze=options.analyze, catalog=catalog)
    results = with_model_fk_actions(conn, planned, catalog, options.limits)
    fk_indexes = frozenset(
        i for r in results if r.path.kind == "constraint" and r.plan for i in r.plan.indexes
    )
    hygiene = hygiene_findings(conn, model, catalog, results, fk_indexes, options.catalog_checks)
    redundant, impacts = _workload(conn, planner, paths, catalog, options, progress)
    return AuditResult(
        version,
        tuple(results),
        tuple(hygiene + redundant),
        tuple(_suggestions(conn, planner, results, catalog, options.hypopg, progress)),
        tuple(impacts),
        seconds=time.perf_counter() - started,
        hypopg=options.hypopg,
        catalog_rules=tuple(options.catalog_rules),
    )


def _workload(
    conn: psycopg.Connection[Any],
    planner: Planner,
    paths: list[AuditPath],
    catalog: Catalog,
    options: AuditOptions,
    progress: Progress,
) -> tuple[list[Finding], list[Impact]]:
    """Each index dropped in turn (rolled back) and every path re-planned: ADA110."""
    if not options.workload:
        return [], []
    progress(f"workload: re-planning {len(paths)} paths without each index")
    plain = {r.path.name: r for r in planner.plan_all(conn, paths, analyze=False, catalog=catalog)}
    return redundant_indexes(conn, planner, paths, plain, catalog, progress)


def _suggestions(
    conn: psycopg.Connection[Any],
    planner: Planner,
    results: list[PathResult],
    catalog: Catalog,
    hypopg: bool,
    progress: Progress,
) -> list[Suggestion]:
    found = []
    for result in results:
        if result.passed:
            continue
        progress(f"suggesting an index: {result.path.name}")
        if (suggestion := suggest(conn, planner, result, catalog, hypopg)) is not None:
            found.append(suggestion)
    return found
