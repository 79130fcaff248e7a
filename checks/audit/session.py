"""`run(request)`: an audit from start to end.

With `dsn`, that database is audited in place (`inplace`): its own data, statistics
and workload, read-only. Without, the profile's schema (`model`, else the default
profile's) goes into a scratch database on the chosen server (`server`, else an embedded
one of `pg_version`), seeded to volume and audited there; the scratch database is
dropped on every exit path. Either way the index rules every family shares (ADV101-ADV104,
`catalog_rules`) report beside the audit's own: `agentddl audit` adds nothing to this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentddl.checks.audit.baseline import DEFAULT_GROWTH, compare, read_baseline, write_baseline
from agentddl.checks.audit.database import AuditOptions, audit_database
from agentddl.checks.audit.fromstats import DEFAULT_TOP
from agentddl.checks.audit.inplace import DEFAULT_SAMPLE, InPlaceRequest, audit_in_place
from agentddl.checks.audit.paths import AuditPath, model_paths
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.catalog_rules.indexes import INDEX_RULES, index_findings
from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db import PostgresServer, connect, describe_dsn
from agentddl.checks.db.install import install_profile
from agentddl.checks.db.provision import scratch_server
from agentddl.checks.db.seed import seed_model
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile

DEFAULT_EVENTS = 1_000_000


@dataclass(frozen=True)
class AuditRequest:
    model: SchemaModel | None  # the profile's schema and paths (None: in place, no profile)
    server: str | None = None  # a server for scratch databases (needs CREATEDB)
    dsn: str | None = None  # the user's database, audited in place
    pg_version: int | None = None  # the embedded server's major, when neither is given
    existing: bool = False  # deprecated: --dsn audits in place (kept as a no-op alias)
    query_files: tuple[Path, ...] = ()  # users' named-query files, audited too
    events: int = DEFAULT_EVENTS  # events to seed (other tables in proportion)
    options: AuditOptions = field(default_factory=AuditOptions)
    baseline: Path | None = None  # plan baseline: written if missing, else compared
    update_baseline: bool = False
    cost_growth: float = DEFAULT_GROWTH
    schema: str | None = None  # in place: the schema to audit (default: the only one with tables)
    from_stats: bool = False  # in place: pg_stat_statements' top statements are the workload too
    stats_top: int = DEFAULT_TOP
    sample_rows: int = DEFAULT_SAMPLE  # in place: rows per table in the what-if clone (0: none)
    analyze_writes: bool = False  # in place: run writes under EXPLAIN ANALYZE, rolled back


def run(request: AuditRequest, progress: Progress = silent) -> AuditResult:
    """Every access path of the profile (and the query files) planned on a seeded
    scratch database and judged; compared with the baseline when one is given."""
    if request.existing and not request.dsn:
        raise AgentDDLError("--existing needs --dsn (or AGENTDDL_DSN): the database whose schema to audit")
    if request.options.limits.max_path_ms is not None and not request.options.analyze:
        raise AgentDDLError("--max-path-ms judges the time EXPLAIN ANALYZE measures: not with --no-analyze")
    # a corrupt baseline is a usage error found now, not after minutes of seeding
    compare_to = _baseline_to_compare(request)
    request = _completed(request)
    if request.dsn:
        if request.pg_version is not None:
            raise AgentDDLError("--pg-version starts an embedded server: not with --dsn (audited in place)")
        return _with_baseline(audit_in_place(_in_place(request), progress), request, compare_to)
    for asked, option in ((request.from_stats, "--from-stats"), (request.analyze_writes, "--analyze-writes")):
        if asked:
            raise AgentDDLError(f"{option} is for a database audited in place: add --dsn")
    assert request.model is not None  # _completed chose the default profile
    paths = audit_paths(request.model, request.query_files)
    engine = request.model.profile.engine.version
    given = request.server or request.dsn
    progress(f"connecting to {describe_dsn(given)}" if given else "starting an embedded PostgreSQL")
    with (
        scratch_server(request.server, None, request.pg_version, prefer=engine) as server,
        server.scratch_database() as scratch,
    ):
        result = _audit_scratch(server, scratch, request, paths, progress)
    return _with_baseline(result, request, compare_to)


def _completed(request: AuditRequest) -> AuditRequest:
    """The request as the audit runs it: the default profile when there is neither a model
    nor a database to audit in place; the shared index rules unless the caller chose its
    own catalog checks."""
    options = request.options
    if not options.catalog_checks:
        options = replace(options, catalog_checks=(index_findings,), catalog_rules=INDEX_RULES)
    model = request.model
    if model is None and not request.dsn:
        model = derive(load_default_profile())
    return replace(request, model=model, options=options)


def _in_place(request: AuditRequest) -> InPlaceRequest:
    return InPlaceRequest(
        dsn=request.dsn or "",
        model=request.model,
        schema=request.schema,
        query_files=request.query_files,
        from_stats=request.from_stats,
        stats_top=request.stats_top,
        server=request.server,
        sample_rows=request.sample_rows,
        analyze_writes=request.analyze_writes,
        options=request.options,
    )


def audit_paths(model: SchemaModel, query_files: tuple[Path, ...]) -> list[AuditPath]:
    paths = model_paths(model)
    for file in query_files:
        paths += load_query_file(file)
    return paths


def _audit_scratch(
    server: PostgresServer,
    scratch: str,
    request: AuditRequest,
    paths: list[AuditPath],
    progress: Progress,
) -> AuditResult:
    model = request.model
    assert model is not None
    progress(f"installing the profile's schema on PostgreSQL {server.version}")
    install_profile(scratch, model, server.version)
    progress(f"seeding: {request.events:,} events")
    stats = seed_model(scratch, model, request.events, progress=_seed_progress(progress))
    options = replace(request.options, hypopg=server.has_extension("hypopg"))
    with connect(scratch, autocommit=False) as conn:
        result = audit_database(conn, model, paths, options, progress)
    return replace(result, seed=stats)


def _seed_progress(progress: Progress) -> Callable[[str, int], None]:
    """seed_model reports (table, rows so far); after the last table, ("analyze", total)."""

    def report(table: str, rows: int) -> None:
        if table == "analyze":
            progress(f"seeded: {rows:,} rows, analyzed")
        else:
            progress(f"seeding {table}: {rows:,} rows")

    return report


def _baseline_to_compare(request: AuditRequest) -> dict[str, Any] | None:
    """The baseline document to compare with; None when this run writes it."""
    if request.baseline is None or request.update_baseline or not request.baseline.exists():
        return None
    return read_baseline(request.baseline)


def _with_baseline(
    result: AuditResult, request: AuditRequest, baseline: dict[str, Any] | None
) -> AuditResult:
    if request.baseline is None:
        return result
    if baseline is None:
        write_baseline(request.baseline, result)
        return result
    regressions = compare(result, baseline, request.cost_growth, request.options.limits.large_rows)
    paths = {r.path.name: r.path for r in result.paths}  # a regression's object is its path
    located = (p.located((f,))[0] if (p := paths.get(f.object or "")) else f for f in regressions)
    return replace(result, regressions=tuple(located))
