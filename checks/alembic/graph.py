"""The revision graph of a set of Alembic revisions, read with Alembic's own
`ScriptDirectory` from a staged copy (`staging`): which revisions are heads, which
revisions each one descends from, and where each revision's file is.

Lint asks it two questions: do the revisions form more than one head (and not on purpose,
with branch labels), and does a revision descend from the version a database is at
(`alembic_version`, read by the database layer and handed in as plain data).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentddl.checks.alembic.staging import stage, staged_config

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

# A script directory that only loads revisions: nothing is run, so no env.py is needed.
_NO_ENV = "raise RuntimeError('the revision graph is read, never run')\n"


@dataclass(frozen=True)
class Head:
    """A revision no other revision names as its parent."""

    revision: str
    path: Path | None  # its file as the user named it; None for a stubbed parent
    branch_labels: frozenset[str]


@dataclass(frozen=True)
class RevisionGraph:
    """The revisions, their files, their heads and each revision's parents."""

    files: dict[str, Path]  # revision id -> the file the user named
    heads: tuple[Head, ...]  # in revision id order
    parents: dict[str, tuple[str, ...]]  # revision id -> its down_revision(s)

    def knows(self, revision: str) -> bool:
        return revision in self.parents

    def descends_from(self, revision: str, ancestor: str) -> bool:
        """True when `ancestor` is `revision` or one of the revisions it upgrades from
        (a walk down its parents: each question costs the graph once, at most)."""
        seen, todo = {revision}, [revision]
        while todo:
            current = todo.pop()
            if current == ancestor:
                return True
            for parent in self.parents.get(current, ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return False

    def accidental_heads(self) -> tuple[Head, ...]:
        """The heads, when there are several and branch labels do not tell them apart
        (named branches are heads on purpose); () otherwise."""
        if len(self.heads) < 2:
            return ()
        labels = [head.branch_labels for head in self.heads]
        distinct = all(labels) and all(a.isdisjoint(b) for i, a in enumerate(labels) for b in labels[i + 1 :])
        return () if distinct else self.heads


def revision_graph(revisions: Iterable[Path]) -> RevisionGraph | None:
    """The graph of the revision files (missing parents become stubs); None when Alembic
    cannot load them (the offline rendering reports why, file by file)."""
    paths = list(revisions)
    with tempfile.TemporaryDirectory(prefix="agentddl-graph-") as temp:
        staged = stage(paths, Path(temp) / "graph", env=_NO_ENV)
        files = {s.revision: original for original, s in staged.items()}
        try:
            script = _script_directory(Path(temp) / "graph")
            return _graph(script, files)
        except Exception:  # revision scripts are user code: any failure to load them
            return None


def _script_directory(root: Path) -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(staged_config(root))


def _graph(script: ScriptDirectory, files: dict[str, Path]) -> RevisionGraph:
    parents: dict[str, tuple[str, ...]] = {}
    for revision in script.walk_revisions():
        down = revision.down_revision
        parents[revision.revision] = (down,) if isinstance(down, str) else tuple(down or ())
    heads = []
    for head in sorted(script.get_heads()):
        found = script.get_revision(head)
        labels = frozenset(found.branch_labels) if found is not None else frozenset()
        heads.append(Head(head, files.get(head), labels))
    return RevisionGraph(files, tuple(heads), parents)
