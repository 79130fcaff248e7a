"""Revisions copied into a throwaway Alembic script directory, so Alembic can load them
without the project's env.py (it may import the application or need a database).

Each revision is copied under a unique name; a parent that none of the copies is gets an
empty stub revision, so a single revision renders on its own.
"""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentddl.checks.alembic.environment import revision_identity

if TYPE_CHECKING:
    from alembic.config import Config

# Our env.py: Alembic's offline mode with our statement hooks (offline_env.run_offline).
ENV_PY = """\
from alembic import context

from agentddl.checks.alembic.offline_env import run_offline

run_offline(context)
"""
REVISION_FILE_KEY = "agentddl_file"  # Config.attributes: the staged copy being rendered
NOT_A_REVISION = "no `revision = '...'` assignment: not an Alembic revision"  # left out of the stage


@dataclass(frozen=True)
class StagedRevision:
    """A revision's copy in the script directory, and the range that upgrades to it."""

    copy: Path
    revision: str
    down: str | None  # the first down_revision; None for a base revision


def stage(revisions: list[Path], root: Path, env: str = ENV_PY) -> dict[Path, StagedRevision]:
    """A script directory at `root` holding our env.py (`env`: its text; the offline one
    by default), a copy of every revision (those with a literal `revision = "..."`; the
    others are left out) and stubs for missing parents. The staged revisions by the path
    the user named."""
    versions = root / "versions"
    versions.mkdir(parents=True)
    (root / "env.py").write_text(env, encoding="utf-8")
    staged: dict[Path, StagedRevision] = {}
    for number, original in enumerate(revisions):
        identity = revision_identity(original)
        if identity is None:
            continue
        copy = versions / f"r{number:05d}_{original.name}"
        shutil.copyfile(original, copy)
        staged[original] = StagedRevision(copy, *identity)
    known = {s.revision for s in staged.values()}
    parents = {s.down for s in staged.values() if s.down is not None}
    for number, missing in enumerate(sorted(parents - known)):
        stub = f"revision = {missing!r}\ndown_revision = None\n\ndef upgrade():\n    pass\n"
        (versions / f"stub_{number:05d}.py").write_text(stub, encoding="utf-8")
    return staged


def staged_config(root: Path, output_buffer: io.StringIO | None = None) -> Config:
    """Alembic's configuration of the script directory staged at `root`."""
    from alembic.config import Config

    config = Config(output_buffer=output_buffer)
    config.set_main_option("script_location", str(root))
    return config
