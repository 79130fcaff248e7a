"""A versions folder as one chain of revisions: the user's and agentddl's, base to head.

The next agentddl revision chains onto the head (whoever wrote it) and computes its
delta from the last agentddl revision's recorded profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentddl.generator.errors import AgentDDLError
from agentddl.generator.revision.record import RevisionFile, read_revision


@dataclass(frozen=True)
class Chain:
    folder: Path
    revisions: tuple[RevisionFile, ...]  # base first, head last

    @property
    def head(self) -> RevisionFile | None:
        return self.revisions[-1] if self.revisions else None

    @property
    def generated(self) -> tuple[RevisionFile, ...]:
        """agentddl's own revisions, oldest first."""
        return tuple(r for r in self.revisions if r.generated)

    def next_id(self) -> str:
        """One more than the highest numeric id in the folder (0001 in an empty one)."""
        numbers = [int(r.revision) for r in self.revisions if r.revision.isdigit()]
        return f"{max(numbers, default=0) + 1:04d}"

    def find(self, revision: str) -> RevisionFile:
        found = next((r for r in self.revisions if r.revision == revision), None)
        if found is None:
            known = ", ".join(r.revision for r in self.revisions) or "none"
            raise AgentDDLError(f"{self.folder}: no revision {revision!r} (found: {known})")
        return found


def read_chain(folder: Path) -> Chain:
    """Every revision in `folder`, ordered so each follows the ones it revises; an error
    for more than one head (Alembic's "Multiple head revisions")."""
    files = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py") if folder.is_dir() else []
    found = [r for r in map(read_revision, files) if r is not None]
    _unique(folder, found)
    return Chain(folder, _ordered(folder, found))


def _unique(folder: Path, revisions: list[RevisionFile]) -> None:
    seen: dict[str, Path] = {}
    for r in revisions:
        if r.revision in seen:
            raise AgentDDLError(f"{r.path}: revision {r.revision!r} is also {seen[r.revision].name}")
        seen[r.revision] = r.path


def _ordered(folder: Path, revisions: list[RevisionFile]) -> tuple[RevisionFile, ...]:
    by_id = {r.revision: r for r in revisions}
    revised = {d for r in revisions for d in r.down_revision}
    heads = sorted(r.revision for r in revisions if r.revision not in revised)
    if len(heads) > 1:
        raise AgentDDLError(
            f"{folder}: {len(heads)} head revisions ({', '.join(heads)}): "
            "merge them first (`alembic merge heads`), then generate"
        )
    ordered: list[RevisionFile] = []
    placed: set[str] = set()
    # Depth first from the head, parents before children (iterative: chains grow long).
    # Parents outside the folder (another version location) are skipped.
    stack: list[tuple[str, bool]] = [(head, False) for head in heads]
    while stack:
        revision, parents_done = stack.pop()
        if parents_done:
            ordered.append(by_id[revision])
        elif revision not in placed and revision in by_id:
            placed.add(revision)
            stack.append((revision, True))
            stack += [(parent, False) for parent in reversed(by_id[revision].down_revision)]
    return tuple(ordered)
