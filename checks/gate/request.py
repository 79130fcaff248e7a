"""`run(CheckRequest) -> CheckResult`: the whole `agentddl check` as a library call.

1. **lint** the migrations, with the clone's schema when there is one (`pg_dump
   --schema-only`), its Alembic version and its rows (data-dependent statements), all
   read-only, at the clone's major; table sizes are `sizes` (production's), never the
   clone's, which a staging clone does not share with production;
2. **trace** them on a scratch copy of the clone (its schema; `sample` rows per table;
   its statistics with `statistics`), created on `server`, else the clone's server
   unless `pg_version` asks for an embedded one;
3. **verify** that scratch database once migrated: the generic rules, of which only the
   findings the clone itself does not have count (verify reads the clone first);
4. **audit** it in place: the `queries` planned there, compared with `baseline` when one
   is given (written when the file is missing, as `agentddl audit --baseline` does).

Without a clone only the lint runs: there is no schema to apply the migrations to (a
migration that alters an existing table fails on an empty database). With
`changed_since`, only the migrations added or changed since that git ref are checked.
User mistakes raise AgentDDLError (one line, exit 2) before any server work.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agentddl.checks.alembic.environment import revision_identity
from agentddl.checks.audit.baseline import baseline_queries
from agentddl.checks.core.changes import changed_since
from agentddl.checks.db import describe_dsn
from agentddl.checks.gate.result import STEPS, CheckResult, StepResult
from agentddl.checks.gate.steps import lint_step, live_steps
from agentddl.checks.gate.types import CheckRequest
from agentddl.checks.trace.source import expand
from agentddl.generator.errors import AgentDDLError


def run(request: CheckRequest) -> CheckResult:
    """Every step that can run, in order; each step's own report kept whole."""
    request = with_baseline_workload(request)
    _check_options(request)
    files = selected_migrations(request)
    about = _about(request, files)
    if not files:
        reason = f"no migration added or changed since {request.changed_since}"
        return CheckResult(tuple(StepResult(step, skipped=reason) for step in STEPS), about)
    lint = lint_step(request)
    if request.clone is None:
        reason = "no --clone: no schema to apply the migrations to"
        return CheckResult((lint, *(StepResult(step, skipped=reason) for step in STEPS[1:])), about)
    return CheckResult((lint, *live_steps(files, request)), about)


def _check_options(request: CheckRequest) -> None:
    if request.clone is None:
        given = [
            option
            for option, value in (
                ("--sample", request.sample),
                ("--statistics", request.statistics),
                ("--queries", request.queries),
                ("--baseline", request.baseline),
            )
            if value
        ]
        if given:
            raise AgentDDLError(f"{', '.join(given)}: these are about the scratch copy: pass --clone DSN")
    if request.baseline is not None and not request.queries:
        raise AgentDDLError(
            f"--baseline {request.baseline} names no query files: pass --queries FILE (its workload)"
        )
    for path in request.queries:
        if not path.is_file():
            raise AgentDDLError(f"--queries {path}: no such file")


def with_baseline_workload(request: CheckRequest) -> CheckRequest:
    """Without --queries, the workload is the query files the --baseline was taken with
    (`agentddl audit --queries ... --baseline FILE` names them in it). A corrupt baseline
    is found here, before any copy is made."""
    if request.baseline is None or not request.baseline.exists():
        return request
    named = baseline_queries(request.baseline)
    return request if request.queries else replace(request, queries=named)


def selected_migrations(request: CheckRequest) -> list[Path]:
    """The migrations named, or those of them changed since the git ref: of the files
    trace would run (a folder's SQL files, its Alembic revisions in chain order), the
    changed ones that are SQL or a revision (a changed helper module beside the revisions
    is neither)."""
    for path in request.migrations:
        if not path.exists():
            raise AgentDDLError(f"{path}: no such file or folder")
    if request.changed_since is None:
        return list(request.migrations)
    changed = {path.resolve() for path in changed_since(request.changed_since, request.migrations)}
    return [
        path
        for path in expand(list(request.migrations))
        if path.resolve() in changed and (path.suffix == ".sql" or revision_identity(path) is not None)
    ]


def _about(request: CheckRequest, files: list[Path]) -> dict[str, object]:
    about: dict[str, object] = {"migrations": [str(path) for path in files]}
    if request.changed_since is not None:
        about["changed_since"] = request.changed_since
    if request.clone is not None:
        about["clone"] = describe_dsn(request.clone)
    if request.baseline is not None:
        about["baseline"] = str(request.baseline)
    return about
