"""What the Citus check reads: SQL texts with the name a finding points at."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    path: str  # as findings name it: schema.sql, out/queries.sql, ...
    text: str

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset (pglast's locations are bytes
        of UTF-8: converted first)."""
        prefix = self.text.encode("utf-8")[:offset].decode("utf-8", errors="ignore")
        line = prefix.count("\n") + 1
        return line, len(prefix) - (prefix.rfind("\n") + 1) + 1
