"""`audit --dsn DB`: any database audited in place, on its own data and statistics.

Safe on production by construction:
- one read-only session (`default_transaction_read_only`), with `statement_timeout` and
  `lock_timeout`, autocommit: every statement is its own short transaction;
- only reads run: a write is planned as its read part (`writes.read_part`), so the
  target's tables see ACCESS SHARE and nothing stronger, and the session cannot write
  if it tried. `--analyze-writes` opts in to running writes under EXPLAIN ANALYZE, in a
  second session, in transactions that are always rolled back;
- what-if questions go to hypopg (when installed in the target: session-local) or to a
  scratch clone on another server (`whatif`), never to the target.

The workload: the query files, the top statements of pg_stat_statements
(`--from-stats`), the profile's paths (`--profile`), and the lookups of every foreign
key a DELETE or key UPDATE among them fires.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.audit.candidate import Suggestion
from agentddl.checks.audit.database import AuditOptions
from agentddl.checks.audit.examples import read_samples
from agentddl.checks.audit.facts import read_catalog
from agentddl.checks.audit.fkactions import fired, lookup_path, read_foreign_keys, with_fk_actions
from agentddl.checks.audit.fromstats import DEFAULT_TOP, stats_paths
from agentddl.checks.audit.hygiene import InPlaceFacts, hygiene_findings, unused_finding, unused_in_place
from agentddl.checks.audit.judge import plan_errors
from agentddl.checks.audit.paths import AuditPath, model_paths
from agentddl.checks.audit.placeholders import placeholder_names
from agentddl.checks.audit.plan import Catalog
from agentddl.checks.audit.planning import PathResult, Planner, example_params
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.checks.audit.result import AuditResult, InPlace
from agentddl.checks.audit.sampling import Sampler
from agentddl.checks.audit.suggest import suggest
from agentddl.checks.audit.usage import read_usage
from agentddl.checks.audit.whatif import Clone, open_clone
from agentddl.checks.audit.workload import Impact, greedy_redundant, redundant_finding
from agentddl.checks.audit.writes import read_part
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db import connect, database_error, describe_dsn
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

READ_SETTINGS = {"statement_timeout": "60s", "lock_timeout": "2s"}
DEFAULT_SAMPLE = 100_000
_SCHEMAS = """
SELECT n.nspname FROM pg_namespace AS n
WHERE EXISTS (SELECT FROM pg_class AS c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p'))
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg\\_%%'
  AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_namespace'::regclass
                  AND d.objid = n.oid AND d.deptype = 'e')
  AND NOT EXISTS (SELECT FROM pg_extension AS e WHERE e.extnamespace = n.oid AND n.nspname <> 'public')
ORDER BY 1
"""


@dataclass(frozen=True)
class InPlaceRequest:
    dsn: str
    model: SchemaModel | None = None  # --profile: its paths are audited too
    schema: str | None = None  # default: the model's, else the one schema holding tables
    query_files: tuple[Path, ...] = ()
    from_stats: bool = False
    stats_top: int = DEFAULT_TOP
    server: str | None = None  # where the scratch clone goes (default: embedded, the target's major)
    sample_rows: int = DEFAULT_SAMPLE  # rows per table in the clone; 0: no clone
    analyze_writes: bool = False
    options: AuditOptions = field(default_factory=AuditOptions)


def audit_in_place(request: InPlaceRequest, progress: Progress = silent) -> AuditResult:
    started = time.perf_counter()
    target = describe_dsn(request.dsn)
    # A mistake in a query file is the user's to fix first: found before connecting.
    queried = [path for file in request.query_files for path in load_query_file(file)]
    progress(f"connecting to {target} (read-only)")
    with connect(request.dsn, read_only=True, settings=READ_SETTINGS) as conn:
        try:
            return _audit(conn, request, queried, target, started, progress)
        except psycopg.Error as error:
            raise database_error(error, f"auditing {target}") from error


def _audit(
    conn: psycopg.Connection[Any],
    request: InPlaceRequest,
    queried: list[AuditPath],
    target: str,
    started: float,
    progress: Progress,
) -> AuditResult:
    version = conn.info.server_version // 10000
    schema = request.schema or (request.model.schema if request.model else None) or _only_schema(conn, target)
    catalog = read_catalog(conn, schema)
    if not catalog.columns:
        raise AgentDDLError(f"{target}: schema {schema!r} has no tables (name another with --schema)")
    workload = _workload(conn, request, queried, catalog, progress)
    fks = read_foreign_keys(conn, schema)
    lookups = {fk.name: lookup_path(schema, fk) for fk in fks}
    fired_names = {fk.name for p in workload for fk, _ in fired(p, fks)}
    planned = workload + [lookups[n] for n in sorted(fired_names)]
    samples = read_samples(conn, request.model) if request.model is not None else None
    params = example_params(
        conn, request.model, planned + list(lookups.values()), samples, Sampler(conn, catalog)
    )
    limits = request.options.limits
    with _writer(request) as writer:
        planner = Planner(request.model, version, limits, params, schema, writer)
        progress(
            f"planning: {len(planned)} paths on {target}"
            + (" (EXPLAIN ANALYZE of reads)" if request.options.analyze else "")
        )
        results = with_fk_actions(
            planner.plan_all(conn, planned, analyze=request.options.analyze, catalog=catalog),
            fks,
            catalog,
            limits,
        )
    facts = InPlaceFacts(read_usage(conn, catalog), tuple(fks), limits.large_rows)
    hygiene = hygiene_findings(
        conn, request.model, catalog, results, frozenset(), request.options.catalog_checks, in_place=True
    )
    whatif_paths = planned + [p for name, p in lookups.items() if name not in fired_names]
    whatif = _whatif(
        conn, request, replace(planner, writer=None), catalog, results, whatif_paths, facts, progress
    )
    return AuditResult(
        version,
        tuple(results),
        tuple(hygiene + whatif.findings),
        tuple(whatif.suggestions),
        tuple(whatif.impacts),
        seconds=time.perf_counter() - started,
        hypopg=whatif.hypopg,
        catalog_rules=tuple(request.options.catalog_rules),
        in_place=InPlace(target, schema, whatif.redundancy, whatif.suggesting, whatif.note),
    )


def _only_schema(conn: psycopg.Connection[Any], target: str) -> str:
    schemas = [str(r[0]) for r in conn.execute(_SCHEMAS).fetchall()]
    if len(schemas) == 1:
        return schemas[0]
    if not schemas:
        raise AgentDDLError(f"{target}: no schema with tables to audit")
    raise AgentDDLError(
        f"{target}: several schemas hold tables ({', '.join(schemas)}): name one with --schema"
    )


def _workload(
    conn: psycopg.Connection[Any],
    request: InPlaceRequest,
    queried: list[AuditPath],
    catalog: Catalog,
    progress: Progress,
) -> list[AuditPath]:
    """The paths to plan (the profile's, the query files' as `queried`, pg_stat_statements'),
    each write replaced by its read part (unless --analyze-writes)."""
    paths = (model_paths(request.model) if request.model is not None else []) + queried
    if request.from_stats:
        progress("reading pg_stat_statements")
        paths += stats_paths(conn, catalog, request.dsn, request.stats_top)
    if not paths:
        raise AgentDDLError("audit --dsn needs a workload: --queries FILE, --from-stats or --profile PROFILE")
    return [_in_place(p, request.analyze_writes) for p in paths]


def _in_place(path: AuditPath, analyze_writes: bool) -> AuditPath:
    if not path.writes or analyze_writes or not path.plannable:
        return path
    read = read_part(path.sql)
    if read is None:  # an INSERT ... VALUES: its only reads are its unique and FK checks
        return replace(path, plannable=False, written=path.sql)
    kept = placeholder_names(read)
    return replace(path, sql=read, params=tuple(p for p in path.params if p in kept), written=path.sql)


@contextlib.contextmanager
def _writer(request: InPlaceRequest) -> Iterator[psycopg.Connection[Any] | None]:
    """--analyze-writes: a read-write session whose every transaction is rolled back."""
    if not request.analyze_writes:
        yield None
        return
    with connect(request.dsn, settings=READ_SETTINGS) as writer:
        yield writer


@dataclass
class _WhatIf:
    findings: list[Finding] = field(default_factory=list)
    impacts: list[Impact] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    hypopg: bool = False
    redundancy: str = ""  # what judged redundancy for the workload
    suggesting: str = ""  # what judged the suggestions
    note: str = ""


def _whatif(
    conn: psycopg.Connection[Any],
    request: InPlaceRequest,
    planner: Planner,
    catalog: Catalog,
    results: list[PathResult],
    paths: list[AuditPath],
    facts: InPlaceFacts,
    progress: Progress,
) -> _WhatIf:
    """Redundancy for the workload and suggestions, asked of hypopg and a clone."""
    found = _WhatIf(hypopg=_installed(conn, "hypopg"))
    failing = [r for r in results if any(f.code in plan_errors() for f in r.findings)]
    used = {i for r in results if r.plan for i in r.plan.indexes}
    with _clone(conn, request, catalog, planner, progress) as (clone, note):
        found.note = note
        if clone is not None:
            found.findings, found.impacts = _redundant(planner, catalog, paths, used, clone, facts, progress)
            found.redundancy = clone.description
        else:  # no what-if to ask: an index no path reads is reported as such
            found.findings = unused_in_place(catalog, used, facts)
        found.suggestions = _suggestions(conn, planner, failing, catalog, found.hypopg, clone, progress)
        methods = (["hypopg on the target"] if found.hypopg else []) + ([clone.description] if clone else [])
        found.suggesting = (
            " and ".join(methods) or "nothing (no hypopg on the target, no clone): reasoned only"
        )
    return found


@contextlib.contextmanager
def _clone(
    conn: psycopg.Connection[Any],
    request: InPlaceRequest,
    catalog: Catalog,
    planner: Planner,
    progress: Progress,
) -> Iterator[tuple[Clone | None, str]]:
    if request.sample_rows <= 0:
        yield None, "no scratch clone (--sample 0)"
        return
    with open_clone(
        conn, catalog.schema, request.server, planner.version, request.sample_rows, progress
    ) as found:
        yield found


def _redundant(
    planner: Planner,
    catalog: Catalog,
    paths: list[AuditPath],
    used: set[str],
    clone: Clone,
    facts: InPlaceFacts,
    progress: Progress,
) -> tuple[list[Finding], list[Impact]]:
    """The indexes the workload can do without (greedy, in the clone): ADA111 for
    those no path on the target reads, ADA110 for those it reads but need not."""
    in_clone = {
        i
        for r in planner.plan_all(clone.conn, paths, analyze=False, catalog=clone.catalog)
        if r.plan
        for i in r.plan.indexes
    }
    candidates = [
        index
        for index in catalog.index_table
        if index in clone.catalog.index_table
        and (index in in_clone or index not in used)  # what the clone can't reproduce, it can't judge
        and index not in catalog.unique
        and index not in catalog.constraint_indexes
        and catalog.rows.get(catalog.index_table[index], 0.0) >= planner.limits.large_rows
    ]
    # narrowest first (a prefix goes before the index it leads), later names first (of
    # two twins verify's duplicate-index keeps the first by name)
    candidates.sort(reverse=True)
    candidates.sort(key=lambda i: len(catalog.index_columns.get(i, ())))
    progress(f"workload: {len(candidates)} indexes judged in the clone")
    droppable, impacts = greedy_redundant(clone.conn, planner, paths, clone.catalog, candidates, progress)
    findings = [
        finding
        for index in sorted(droppable)
        for finding in (
            unused_finding(catalog, index, facts)
            if index not in used
            else redundant_finding(catalog, index, clone.description)
        )
    ]
    return findings, impacts


def _suggestions(
    conn: psycopg.Connection[Any],
    planner: Planner,
    failing: list[PathResult],
    catalog: Catalog,
    hypopg: bool,
    clone: Clone | None,
    progress: Progress,
) -> list[Suggestion]:
    found: list[Suggestion] = []
    for result in failing:
        progress(f"suggesting an index: {result.path.name}")
        suggestion = suggest(conn, planner, result, catalog, hypopg, clone, in_place=True)
        if suggestion is not None and suggestion.ddl not in {s.ddl for s in found}:
            found.append(suggestion)
    return found


def _installed(conn: psycopg.Connection[Any], extension: str) -> bool:
    row = conn.execute("SELECT EXISTS (SELECT FROM pg_extension WHERE extname = %s)", [extension]).fetchone()
    return bool(row and row[0])
