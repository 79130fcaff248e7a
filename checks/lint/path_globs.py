"""The `path` globs of `[[tool.agentddl.lint.paths]]`: which files an entry covers, and
which of several matching entries is the most specific.

A glob is relative to the config file's folder and uses `/`: `*` and `?` match within
one path segment, `**` any number of segments. A glob that names a folder covers every
file under it (`migrations/legacy` is `migrations/legacy/**`).

Specificity: more segments without a wildcard, then more literal characters; between
two equally specific entries the later one in the file wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class PathGlob:
    """One entry's `path`, anchored at the folder of the config file that declares it."""

    pattern: str
    root: Path

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        return re.compile(_translate(self.pattern.strip("/")))

    def covers(self, file: Path) -> bool:
        """True when `file` (or a folder it is in) matches the glob."""
        try:
            relative = file.resolve().relative_to(self.root.resolve())
        except ValueError:
            return False
        parts = PurePosixPath(relative.as_posix()).parts
        return any(self._regex.fullmatch("/".join(parts[:end])) for end in range(len(parts), 0, -1))

    @property
    def specificity(self) -> tuple[int, int]:
        segments = [s for s in self.pattern.strip("/").split("/") if s]
        literal = sum(1 for s in segments if not _WILD.search(s))
        return literal, len(_WILD.sub("", self.pattern))


_WILD = re.compile(r"[*?]")


def _translate(pattern: str) -> str:
    """A regular expression for a `/`-separated glob with `**`."""
    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:[^/]+/)*")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return "".join(out)
