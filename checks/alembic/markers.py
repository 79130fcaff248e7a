"""`-- agentddl-source: LINE` before each statement of a revision's offline SQL: the line
of the `op.*` call that emitted it, so a finding lands on the revision file.

Written while Alembic renders (`mark`, from inside the op call), read back from the SQL
(`source_markers`).
"""

from __future__ import annotations

import inspect
from collections.abc import Collection

from agentddl.checks.alembic.ignores import line_ignores

MARKER = "-- agentddl-source: "
# Lines Alembic writes itself: what follows them belongs to no op.* call.
_ALEMBIC_LINES = ("-- Running upgrade", "INSERT INTO alembic_version", "UPDATE alembic_version")


def calling_line(revision_file: str) -> int | None:
    """The line of the revision script the current call passes through (the innermost),
    None when the revision is not on the stack (Alembic's own statements)."""
    found = calling_source({revision_file})
    return found[1] if found is not None else None


def calling_source(revision_files: Collection[str]) -> tuple[str, int] | None:
    """The innermost frame of the current call in one of these revision scripts: (its
    file, its line); None when none is on the stack. A statement a function or a
    loop of the revision issues lands on that line: the `op.*` call inside the loop."""
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_filename in revision_files:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


def mark(line: int, source: list[str]) -> str:
    """The marker for `line` and the ignore comments that line carries, one per line."""
    return "\n".join([f"{MARKER}{line}", *line_ignores(source, line)]) + "\n"


def source_markers(sql: str) -> dict[int, int]:
    """SQL line -> revision line, for every SQL line after a marker (0 = unknown)."""
    mapping: dict[int, int] = {}
    current = 0
    for number, line in enumerate(sql.splitlines(), start=1):
        if line.startswith(MARKER):
            current = int(line[len(MARKER) :].strip() or 0)
        elif line.startswith(_ALEMBIC_LINES):
            current = 0
        mapping[number] = current
    return mapping
