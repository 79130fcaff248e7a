"""Where a profile comes from on the command line: a profile file, a revision that
records one, or a folder of revisions (its last agentddl revision's)."""

from __future__ import annotations

from pathlib import Path

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import Profile, load_profile
from agentddl.generator.revision.chain import read_chain
from agentddl.generator.revision.record import read_revision


def load_profile_source(path: Path) -> tuple[Profile, str]:
    """The profile and a label naming where it came from."""
    if path.is_dir():
        folder = path / "versions" if (path / "versions").is_dir() else path
        generated = read_chain(folder).generated
        if not generated:
            raise AgentDDLError(f"{folder}: no agentddl revision records a profile")
        last = generated[-1]
        return last.profile(), f"{last.path} (revision {last.revision})"
    if path.suffix == ".py":
        revision = read_revision(path) if path.is_file() else None
        if revision is None:
            raise AgentDDLError(f"{path}: not an Alembic revision")
        return revision.profile(), f"{path} (revision {revision.revision})"
    return load_profile(path), str(path)
