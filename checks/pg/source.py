"""Offsets to 1-based line/column, and skipping whitespace and comments."""

from __future__ import annotations

import bisect
import re

_NEWLINE = re.compile("\n")


class SourceMap:
    """Maps character offsets of one text to 1-based (line, column) positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts = [0]
        self._line_starts.extend(match.end() for match in _NEWLINE.finditer(text))

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of the character at `offset`."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        """The text of 1-based `line`, without its newline."""
        if not 1 <= line <= len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def line_offset(self, line: int) -> int:
        """The offset of the first character of 1-based `line`."""
        return self._line_starts[max(0, min(line, len(self._line_starts)) - 1)]


def skip_trivia(text: str, offset: int) -> int:
    """The offset of the first character at or after `offset` that is not whitespace or a
    comment (`-- ...` or nested `/* ... */`), so a statement's location is its first word."""
    length = len(text)
    while offset < length:
        if text[offset].isspace():
            offset += 1
        elif text.startswith("--", offset):
            end = text.find("\n", offset)
            offset = length if end < 0 else end + 1
        elif text.startswith("/*", offset):
            offset = _skip_block_comment(text, offset)
        else:
            break
    return offset


def _skip_block_comment(text: str, offset: int) -> int:
    depth, offset = 1, offset + 2
    while offset < len(text) and depth:
        if text.startswith("/*", offset):
            depth, offset = depth + 1, offset + 2
        elif text.startswith("*/", offset):
            depth, offset = depth - 1, offset + 2
        else:
            offset += 1
    return offset
