"""Inline suppressions: `-- agentddl: ignore[rule-a, rule-b] reason` and
`-- agentddl: ignore-file[rule-name] reason`."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

import pglast

from agentddl.checks.pg.source import SourceMap

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
    next_statement_line: int | None = None  # first line of the statement after it

    def covers(self, rule: str, first_line: int, last_line: int) -> bool:
        """True when this ignores `rule` for a statement spanning first_line..last_line:
        a file-level ignore, one on any of its lines, or one alone on its line before the
        statement (blank lines and other comments may sit between). A trailing ignore
        (after code) covers only the statements on its own line."""
        if rule not in self.rules:
            return False
        if self.file_level or first_line <= self.line <= last_line:
            return True
        return self.own_line and first_line in (self.line + 1, self.next_statement_line)


def attach_to_statements(suppressions: list[Suppression], spans: list[tuple[int, int]]) -> list[Suppression]:
    """Give each own-line ignore outside any statement the line of the next statement."""
    starts = sorted(first for first, _ in spans)
    attached = []
    for suppression in suppressions:
        inside = any(first <= suppression.line <= last for first, last in spans)
        if suppression.own_line and not inside:
            following = bisect.bisect_right(starts, suppression.line)
            if following < len(starts):
                suppression = replace(suppression, next_statement_line=starts[following])
        attached.append(suppression)
    return attached


def find_suppressions(text: str, source: SourceMap) -> list[Suppression]:
    """Every ignore comment in `text`, in order."""
    if "agentddl:" not in text:  # most files: skip scanning for comments
        return []
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
