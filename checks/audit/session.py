"""Where an audit runs: a scratch database on the chosen server, with the profile's
schema (or a copy of the schema already in the user's database, for --existing),
seeded to volume. The user's own tables are never written: seeding only touches the
scratch copy, which is dropped at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.audit.baseline import compare, read_baseline, write_baseline
from agentddl.checks.audit.existing import copy_schema, first_line
from agentddl.checks.audit.paths import AuditPath, model_paths
from agentddl.checks.audit.queryfile import load_query_file
from agentddl.checks.audit.run import AuditOptions, AuditResult, audit_database
from agentddl.checks.db import PostgresServer, open_server
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed import seed_model
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel

DEFAULT_EVENTS = 1_000_000


@dataclass(frozen=True)
class AuditRequest:
    model: SchemaModel
    dsn: str | None = None
    existing: bool = False
    query_files: tuple[Path, ...] = ()
    events: int = DEFAULT_EVENTS
    options: AuditOptions = field(default_factory=AuditOptions)
    baseline: Path | None = None
    update_baseline: bool = False
    cost_growth: float = 2.0


def run_audit(request: AuditRequest, progress: Callable[[str, int], None] | None = None) -> AuditResult:
    if request.existing and not request.dsn:
        raise AgentDDLError("--existing needs --dsn (or AGENTDDL_DSN): the database whose schema to audit")
    paths = audit_paths(request.model, request.query_files)
    # a corrupt baseline is a usage error found now, not after minutes of seeding
    compare_to = _baseline_to_compare(request)
    with open_server(request.dsn, prefer=request.model.profile.engine.version) as server:
        scratch = server.create_database()
        try:
            result = _audit_scratch(server, scratch, request, paths, progress)
        finally:
            server.drop_database(scratch)
    return _with_baseline(result, request, compare_to)


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
    progress: Callable[[str, int], None] | None,
) -> AuditResult:
    model = request.model
    if request.existing:
        copy_schema(server, request.dsn or "", scratch, model.schema)
    else:
        _install(server, scratch, model)
    stats = seed_model(scratch, model, request.events, progress=progress)
    options = replace(request.options, hypopg=server.has_extension("hypopg"))
    with psycopg.connect(scratch) as conn:
        result = audit_database(conn, model, paths, options)
    seed = {
        "rows": stats.rows,
        "rows_per_second": round(stats.rows_per_second),
        "seconds": round(stats.seconds, 2),
    }
    return replace(result, extra={**result.extra, "seed": seed, "hypopg": options.hypopg})


def _install(server: PostgresServer, scratch: str, model: SchemaModel) -> None:
    """The profile's schema.sql; a server that refuses it (older than the profile's
    engine, an extension it lacks) is a usage error, said in one line."""
    try:
        with psycopg.connect(scratch, autocommit=True) as conn:
            install_schema(conn, model)
    except psycopg.Error as error:
        target = model.profile.engine.version
        older = f" (the profile targets {target})" if server.version < target else ""
        raise AgentDDLError(
            f"PostgreSQL {server.version}{older} refused the profile's schema: {first_line(error)}"
        ) from error


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
    return replace(result, regressions=tuple(regressions))
