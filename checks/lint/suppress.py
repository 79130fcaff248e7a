"""Inline suppressions: `-- agentddl: ignore[rule-a, rule-b] reason` and
`-- agentddl: ignore-file[rule-name] reason`."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pglast

from agentddl.checks.lint.source import SourceMap

_IGNORE = re.compile(
    r"agentddl:\s*(?P<kind>ignore-file|ignore)\s*\[(?P<rules>[^\]]*)\]\s*(?P<reason>.*)",
    re.DOTALL,
)


@dataclass(frozen=True)
class Suppression:
    """One ignore comment and where it is."""

    rules: tuple[str, ...]
    reason: str
    file_level: bool
    line: int
    column: int
    own_line: bool  # nothing but whitespace before the comment on its line

    def covers(self, rule: str, first_line: int, last_line: int) -> bool:
        """True when this ignores `rule` for a statement spanning first_line..last_line:
        a file-level ignore, one on any of its lines, or one alone on the line before it.
        A trailing ignore (after code) covers only the statements on its own line."""
        if rule not in self.rules:
            return False
        if self.file_level or first_line <= self.line <= last_line:
            return True
        return self.own_line and self.line == first_line - 1


def find_suppressions(text: str, source: SourceMap) -> list[Suppression]:
    """Every ignore comment in `text`, in order."""
    found = []
    for offset, comment in _comments(text):
        match = _IGNORE.search(comment)
        if not match:
            continue
        body = comment[:-2] if comment.endswith("*/") else comment
        reason = _IGNORE.search(body)
        rules = tuple(r.strip() for r in match.group("rules").split(",") if r.strip())
        line, column = source.position(offset)
        found.append(
            Suppression(
                rules=rules,
                reason=_reason(reason.group("reason") if reason else ""),
                file_level=match.group("kind") == "ignore-file",
                line=line,
                column=column,
                own_line=not source.line_text(line)[: column - 1].strip(),
            )
        )
    return found


def _reason(text: str) -> str:
    """The reason: up to a further `--` (`ignore[x] reason -- another comment`)."""
    return text.split("--", 1)[0].strip()


def _comments(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each SQL comment; the scanner keeps `--` inside strings out."""
    try:
        tokens = pglast.parser.scan(text)
    except pglast.parser.ParseError:
        return [(m.start(), m.group(0)) for m in re.finditer(r"--[^\n]*", text)]
    return [
        (token.start, text[token.start : token.end + 1])
        for token in tokens
        if token.name in ("SQL_COMMENT", "C_COMMENT")
    ]
