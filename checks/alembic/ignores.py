"""`# agentddl: ignore[...]` comments of a revision's Python source, as the SQL comments
the linter reads: a line's comment (or the one just above it) goes before the statement
that line emitted; `ignore-file[...]` goes at the top of the revision's SQL."""

from __future__ import annotations

import re
from pathlib import Path

_LINE_IGNORE = re.compile(r"#\s*(agentddl:\s*ignore(?:-file)?\s*\[.*)$")
_FILE_IGNORE = re.compile(r"#\s*(agentddl:\s*ignore-file\s*\[.*)$", re.MULTILINE)


def line_ignores(source: list[str], line: int) -> list[str]:
    """The ignore comments on `line` and the line above it (1-based), as SQL comments."""
    comments = []
    for number in (line - 1, line):
        match = _LINE_IGNORE.search(source[number - 1]) if 0 < number <= len(source) else None
        if match:
            comments.append(f"-- {match.group(1)}")
    return comments


def file_ignores(path: Path) -> str:
    """The revision's `# agentddl: ignore-file[...]` comments, as SQL comment lines."""
    text = path.read_text(encoding="utf-8")
    return "".join(f"-- {comment}\n" for comment in _FILE_IGNORE.findall(text))
