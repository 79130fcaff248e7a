"""`agentddl generate`: profile -> schema.sql, the next Alembic revision, queries.sql, PLAN.md
(and redis/, the hot projection's keys, scripts and module, with hot_state.store: redis)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentddl.checks.cli.options import Profile, Server

if TYPE_CHECKING:
    from agentddl.generator.revision.next import Generation

# Not the shared --dsn: $AGENTDDL_DSN (set for `alembic upgrade`) must not silently switch
# this command to the live catalog.
LiveDsn = Annotated[
    str | None,
    typer.Option("--dsn", help="Compute the delta from this database's catalog, not the recorded profile."),
]

EXAMPLES = """
Examples:

  agentddl generate --profile schemas/default.yaml --out migrations --alembic  # + alembic.ini

  agentddl generate --profile schemas/default.yaml --out migrations   # later: the next revision

  agentddl generate --profile schemas/default.yaml --out migrations --check  # CI: head current?

  agentddl generate -p schemas/default.yaml --revision-only --out alembic --down-revision HEAD

  agentddl generate --profile schemas/default.yaml --out migrations --dsn postgresql://me@db/app

The profile is --profile (-p), as for every other command, or the first argument
(`agentddl generate schemas/default.yaml --out migrations`); not both.

An empty versions/ folder gets the whole schema as one revision. When versions/ already
holds agentddl revisions, applied revisions are never rewritten: if the profile differs from
the one the last agentddl revision records, the next revision holds exactly the change, online
(CONCURRENTLY, NOT VALID then VALIDATE, short lock_timeout with retries); the same profile
writes nothing. A change that cannot be made online is refused with a plan.
"""


def generate(
    context: typer.Context,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output directory (revisions go to its versions/).")
    ],
    positional: Annotated[
        Path | None, typer.Argument(help="Profile YAML file (or --profile).", metavar="PROFILE")
    ] = None,
    profile: Profile = None,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 if the head revision or a file is stale.")
    ] = False,
    revision_only: Annotated[
        bool, typer.Option("--revision-only", help="Only the Alembic revision (versions/...).")
    ] = False,
    alembic: Annotated[
        bool, typer.Option("--alembic", help="Also write alembic.ini, env.py, script.py.mako (if missing).")
    ] = False,
    down_revision: Annotated[
        str,
        typer.Option(
            "--down-revision",
            help="Where the first agentddl revision chains on: HEAD (the folder's head) or a revision id.",
        ),
    ] = "HEAD",
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous", help="The profile the last agentddl revision came from, if it records none."
        ),
    ] = None,
    dsn: LiveDsn = None,
    server: Server = None,
) -> None:
    """Render the schema, its next Alembic revision, the named queries and the rollout plan
    (and redis/ when the profile keeps its hot state in Redis)."""
    from agentddl.checks.diff.generate import GenerateRequest, run_generate

    profile = _one_profile(context, positional, profile)

    request = GenerateRequest(
        profile, out, check, revision_only, alembic, down_revision, previous, dsn=dsn, server=server
    )
    result = run_generate(request)
    if check:
        files = len(result.generation.files)
        typer.echo(f"{out} is up to date with {profile} ({files} files and the head revision)")
        return
    typer.echo(_summary(result.generation, result.written, out, result.seconds * 1000))


def _one_profile(context: typer.Context, argument: Path | None, option: Path | None) -> Path:
    """The profile, given once: as the first argument or as --profile (a usage error otherwise)."""
    if argument is not None and option is not None:
        context.fail(f"the profile is given twice (PROFILE {argument} and --profile {option}): give it once")
    profile = argument if argument is not None else option
    if profile is None:
        context.fail("missing the profile: give it as --profile PROFILE (or as the first argument)")
    return profile


def _summary(generation: Generation, changed: dict[str, str], out: Path, elapsed: float) -> str:
    size = sum(len(t.encode()) for t in changed.values())
    others = [p for p in changed if p != generation.revision]
    files = f"{len(others)} other file(s)" if others else "no other file"
    if generation.revision is None:
        head = generation.base.revision if generation.base else "?"
        if not changed:
            return f"{out} is up to date: revision {head} was rendered from this profile; nothing written"
        return (
            f"revision {head} was rendered from this profile (no new revision); rewrote {', '.join(others)}"
        )
    if generation.delta is None or generation.base is None:
        what = "the whole schema"
    else:
        what = f"{len(generation.delta.steps)} online step(s) from revision {generation.base.revision}"
    return f"wrote {generation.revision} ({what}) and {files} to {out} ({size:,} bytes) in {elapsed:.0f} ms"


def register(app: typer.Typer) -> None:
    app.command(name="generate", epilog=EXAMPLES)(generate)
