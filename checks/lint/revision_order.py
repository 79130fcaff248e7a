"""Problems of the Alembic revisions' order, judged on their graph (`alembic.graph`):
more than one head (multiple-heads), and revisions out of order with the version a
database is at (revision-not-after-applied: the `alembic_version` rows the command line
read with `--schema-from DSN`, handed in as plain data).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentddl.checks.alembic.graph import RevisionGraph, revision_graph

HEADS, AFTER_APPLIED = "multiple-heads", "revision-not-after-applied"
_REVISION_LINE = re.compile(r"^revision\s*(?::[^=]*)?=", re.MULTILINE)


@dataclass(frozen=True)
class OrderProblem:
    """One finding to make: the rule, the revision file, and what to say."""

    rule: str
    path: Path
    message: str
    fix: str


def order_problems(
    revisions: Sequence[Path], applied: Sequence[str] | None, changed: Collection[Path] | None
) -> list[OrderProblem]:
    """What is wrong with the order of `revisions` (linted together), against the
    `applied` versions of a database when known; `changed` (resolved paths): only the
    revisions a --changed-since run reports on."""
    graph = revision_graph(revisions)
    if graph is None:
        return []
    problems = [*_heads(graph), *_against_applied(graph, applied or (), changed)]
    if changed is None:
        return problems
    return [p for p in problems if p.path.resolve() in changed]


def revision_line(text: str) -> int:
    """The line of a revision script's `revision = ...` assignment (1 if none)."""
    found = _REVISION_LINE.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def _heads(graph: RevisionGraph) -> Iterator[OrderProblem]:
    heads = graph.accidental_heads()
    names = ", ".join(head.revision for head in heads)
    for head in heads:
        if head.path is None:
            continue
        yield OrderProblem(
            HEADS,
            head.path,
            f"These revisions have {len(heads)} heads ({names}): `alembic upgrade head` refuses to"
            " run, and the lines of changes were never put in order.",
            f"Merge them: alembic merge -m 'merge heads' {' '.join(h.revision for h in heads)}"
            " (or point this revision's down_revision at the other head while it is not deployed).",
        )


def _against_applied(
    graph: RevisionGraph, applied: Sequence[str], changed: Collection[Path] | None
) -> Iterator[OrderProblem]:
    if not applied:
        return
    at = ", ".join(applied)
    complete = set(graph.parents) <= set(graph.files)  # no stubbed parent: the whole chain
    if changed is not None:
        for revision, path in sorted(graph.files.items()):
            if path.resolve() in changed and any(graph.descends_from(v, revision) for v in applied):
                yield OrderProblem(
                    AFTER_APPLIED,
                    path,
                    f"The database is at {at}, which counts this revision as applied: Alembic"
                    " skips it, and its changes never run there.",
                    "Give the change a new revision after the applied version (down_revision ="
                    f" '{applied[0]}'), instead of adding or editing one below it.",
                )
    if not complete:
        return
    unknown = [v for v in applied if not graph.knows(v)]
    for head in graph.heads:
        if head.path is None:
            continue
        if unknown:
            yield OrderProblem(
                AFTER_APPLIED,
                head.path,
                f"The database is at {', '.join(unknown)}, which none of these revisions is:"
                " alembic upgrade fails (Can't locate revision).",
                "Add the revision the database is at (from the branch that deployed it) and"
                " merge it, or stamp the database after checking its schema.",
            )
        elif not any(
            graph.descends_from(head.revision, v) or graph.descends_from(v, head.revision) for v in applied
        ):
            yield OrderProblem(
                AFTER_APPLIED,
                head.path,
                f"This revision does not descend from {at}, the version the database is at: its"
                " down_revision chain branches off below it, so `alembic upgrade head` does not"
                " run it there (or refuses, for multiple heads).",
                f"Point its down_revision at the applied line (down_revision = '{applied[0]}'),"
                " or alembic merge the heads.",
            )
