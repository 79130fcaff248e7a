"""`agentddl generate`: profile -> schema.sql, Alembic revision, queries.sql, PLAN.md."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

EXAMPLES = """
Examples:

  agentddl generate schemas/default.yaml --out build/agent

  agentddl generate schemas/default.yaml --out build/agent --check   # CI: fail on drift

  agentddl generate schemas/default.yaml --revision-only --out migrations
"""


def generate(
    profile: Annotated[Path, typer.Argument(help="Profile YAML file.", metavar="PROFILE")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")],
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 if files on disk differ.")
    ] = False,
    revision_only: Annotated[
        bool, typer.Option("--revision-only", help="Only the Alembic revision (versions/...).")
    ] = False,
) -> None:
    """Render the schema, its Alembic revision, named queries and rollout plan."""
    from agentddl.generator.artifacts import render_artifacts
    from agentddl.generator.output import check_files, write_files
    from agentddl.generator.profile import load_profile

    started = time.perf_counter()
    files = render_artifacts(load_profile(profile))
    if revision_only:
        files = {path: text for path, text in files.items() if path.startswith("versions/")}
    if check:
        check_files(files, out)
        typer.echo(f"{len(files)} files in {out} are up to date")
        return
    written = write_files(files, out)
    size = sum(len(text.encode()) for text in files.values())
    elapsed = (time.perf_counter() - started) * 1000
    typer.echo(f"wrote {len(written)} files to {out} ({size:,} bytes) in {elapsed:.0f} ms")


def register(app: typer.Typer) -> None:
    app.command(name="generate", epilog=EXAMPLES)(generate)
