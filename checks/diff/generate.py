"""`agentddl generate` as a library call: a profile -> the files that must be on disk
(schema.sql, the next Alembic revision, queries.sql, PLAN.md, ...), written when they
differ, or compared (`check`). With `dsn`, the next revision starts from that database's
catalog (`live.live_delta`) instead of the profile the last revision records.

    result = run_generate(GenerateRequest(Path("schemas/default.yaml"), Path("migrations")))
    print(result.generation.revision, sorted(result.written))
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.output import check_files, write_files
from agentddl.generator.profile import load_profile
from agentddl.generator.revision.next import HEAD, Generation, Request, check_generation, plan_generation


@dataclass(frozen=True)
class GenerateRequest:
    profile: Path
    out: Path  # revisions go to its versions/
    check: bool = False  # write nothing; raise DriftError when the head revision or a file is stale
    revision_only: bool = False
    alembic: bool = False  # also write a working Alembic environment (missing files only)
    down_revision: str = HEAD  # where the first agentddl revision chains on: the head, or an id
    previous: Path | None = None  # the last agentddl revision's profile, when it records none
    dsn: str | None = None  # the delta from this database's catalog, not the recorded profile
    server: str | None = None  # where the fresh install compared with `dsn` goes


@dataclass(frozen=True)
class GenerateResult:
    generation: Generation  # what must be on disk (compared, in check mode)
    written: dict[str, str] = field(default_factory=dict)  # relative path -> text written now
    seconds: float = 0.0


def run_generate(request: GenerateRequest) -> GenerateResult:
    """Write the files that differ from what the profile renders (or, with `check`, raise
    when any does); the files equal on disk are left untouched."""
    if request.server is not None and request.dsn is None:
        raise AgentDDLError("--server holds the fresh install --dsn is compared with: give --dsn too")
    started = time.perf_counter()
    planned = _request(request)
    if request.check:
        compared = check_generation(planned)
        check_files(compared.files, request.out)
        return GenerateResult(compared, seconds=time.perf_counter() - started)
    generation = plan_generation(planned)
    changed = {p: t for p, t in generation.files.items() if not _same(request.out / p, t)}
    write_files(changed, request.out)
    return GenerateResult(generation, changed, time.perf_counter() - started)


def _request(request: GenerateRequest) -> Request:
    loaded = load_profile(request.profile)  # every mistake in it is located, before the raw text is read
    planned = Request(
        profile=loaded,
        out=request.out,
        revision_only=request.revision_only,
        down_revision=request.down_revision,
        previous=load_profile(request.previous) if request.previous else None,
        alembic=request.alembic,
        source=(str(request.profile), _text(request.profile)),
    )
    if request.dsn is None:
        return planned
    from agentddl.checks.diff.live import live_delta  # a database only with --dsn

    return replace(planned, live=live_delta(loaded, request.dsn, request.server))


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")  # load_profile has read and decoded it already
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDDLError(f"{path}: cannot read: {error}") from None


def _same(path: Path, text: str) -> bool:
    return path.is_file() and path.read_text(encoding="utf-8") == text
