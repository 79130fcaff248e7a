"""The gate's steps, each a family's public `run(request)`: lint alone; then trace,
verify and audit on one scratch copy of the clone, kept alive from the trace to the
audit (trace calls back with it before dropping it)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks import audit, lint, trace, verify
from agentddl.checks.core.findings import Finding
from agentddl.checks.db import connect, database_error, describe_dsn
from agentddl.checks.db.alembic_version import applied_revisions
from agentddl.checks.db.data_probe import ReadOnlyProbe
from agentddl.checks.db.schema_read import read_schema
from agentddl.checks.gate.result import StepResult
from agentddl.checks.gate.types import CheckRequest
from agentddl.checks.pg.schema_parse import parse_schema


def lint_step(request: CheckRequest) -> StepResult:
    """The linter on the migrations (those changed since the ref, their Alembic chain
    rendered with them). With a clone it knows its schema, its major, its Alembic version
    and asks its rows about data-dependent statements, all read-only; table sizes are
    `request.sizes` only (production's: a staging clone's few rows would make every index
    build look harmless, see lint/sizes.py)."""
    clone = request.clone
    version = server_major(clone) if clone is not None else None  # a bad DSN fails here, at once
    schema = parse_schema(read_schema(clone), describe_dsn(clone)) if clone is not None else None
    with contextlib.ExitStack() as stack:
        lint_request = lint.LintRequest(
            [str(path) for path in request.migrations],
            pg_version=version,
            config_file=request.config_file,
            schema=schema,
            sizes=request.sizes,
            probe=stack.enter_context(ReadOnlyProbe(clone)) if clone is not None else None,
            changed_since=request.changed_since,
            applied_revisions=applied_revisions(clone) if clone is not None else None,
        )
        return StepResult("lint", lint.run(lint_request).report())


def server_major(dsn: str) -> int:
    try:
        with connect(dsn, read_only=True) as conn:
            return conn.info.server_version // 10000
    except psycopg.Error as error:
        raise database_error(error, f"connecting to {describe_dsn(dsn)}") from None


def live_steps(files: Sequence[Path], request: CheckRequest) -> tuple[StepResult, StepResult, StepResult]:
    """trace, verify and audit: the clone's own verify findings read first (only new ones
    count), then the migrations traced on a scratch copy, verified and audited there."""
    clone = request.clone
    assert clone is not None
    where = describe_dsn(clone)
    request.progress(f"verify: reading the catalog of {where} (read-only)")
    before = verify.run(verify.VerifyRequest(dsn=clone, schemas=_schemas(request)))
    migrated: dict[str, Any] = {}

    def after(scratch: str) -> None:
        if not request.statistics:  # the sampled rows' statistics; copied ones are the clone's
            request.progress("analyze: the migrated scratch database")
            analyze(scratch)
        request.progress("verify: the migrated scratch database")
        migrated["verify"] = verify.run(verify.VerifyRequest(dsn=scratch, schemas=_schemas(request)))
        if request.queries:
            migrated["audit"] = audit.run(_audit_request(scratch, request), request.progress)

    traced = trace.run(
        trace.TraceRequest(
            migrations=list(files),
            dsn=clone,
            sample=request.sample,
            statistics=request.statistics,
            server=request.server,
            pg_version=request.pg_version,
            progress=request.progress,
            after=after,
        )
    )
    described = f"the scratch copy of {where}, migrated"  # its name in the reports: it is dropped by now
    return (
        StepResult("trace", trace.build_report(traced)),
        _verify_step(before, migrated["verify"], described),
        _audit_step(migrated.get("audit"), described),
    )


def analyze(scratch: str) -> None:
    """Statistics for the audit's planner: the copy's rows, after the migrations."""
    try:
        with connect(scratch, autocommit=True) as conn:
            conn.execute("ANALYZE")
    except psycopg.Error as error:
        raise database_error(error, "analyzing the scratch database") from None


def _schemas(request: CheckRequest) -> list[str]:
    return [request.schema] if request.schema else []


def _verify_step(before: verify.VerifyResult, after: verify.VerifyResult, described: str) -> StepResult:
    """What the migrations added: the findings the clone already has are not the change's."""
    known = {_identity(finding) for finding in before.findings}
    new = [finding for finding in after.findings if _identity(finding) not in known]
    kept = len(after.findings) - len(new)
    note = f"{kept} finding(s) the clone already has, not counted" if kept else ""
    result = verify.VerifyResult(new, {**after.about, "database": described})
    return StepResult("verify", verify.build_report(result), note=note)


def _identity(finding: Finding) -> tuple[str, str | None, str]:
    return finding.code, finding.object, finding.message


def _audit_request(scratch: str, request: CheckRequest) -> audit.AuditRequest:
    return audit.AuditRequest(
        None,
        dsn=scratch,
        query_files=request.queries,
        baseline=request.baseline,
        cost_growth=request.cost_growth,
        schema=request.schema,
        sample_rows=0,  # the scratch database is a copy already: no what-if clone of it
        options=audit.AuditOptions(catalog_checks=(_index_rules_in_verify,)),
    )


def _index_rules_in_verify(_connection: object, _schema: str) -> list[Finding]:
    """The shared index rules (ADV101-ADV104) run once, in the verify step."""
    return []


def _audit_step(result: audit.AuditResult | None, described: str) -> StepResult:
    if result is None:
        return StepResult("audit", skipped="no --queries: no workload to plan")
    if result.in_place is not None:
        result = replace(result, in_place=replace(result.in_place, target=described))
    return StepResult("audit", audit.build_report(result))
