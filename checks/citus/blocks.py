"""Named queries (aiosql `-- name:` blocks) as pglast statements with their position.

aiosql's `:name` parameters are not SQL: each is replaced by `$1` padded with spaces to
the same length before parsing, so every location pglast reports is the file's own."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentddl.checks.citus.layout import parse
from agentddl.checks.citus.sources import Source

_NAME = re.compile(r"^--\s*name:\s*([A-Za-z_][\w-]*)", re.M)
_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")  # :name, not a ::cast


@dataclass(frozen=True)
class NamedQuery:
    name: str  # the block's name; the statement's line when the file names none
    statement: Any  # a pglast statement node
    offset: int  # of the statement in the file


def read_queries(source: Source) -> list[NamedQuery]:
    sql = Source(source.path, _PARAM.sub(lambda m: "$1".ljust(len(m.group(0))), source.text))
    names = [(m.start(), m.group(1)) for m in _NAME.finditer(source.text)]
    found = []
    for raw in parse(sql):
        offset = _char_offset(sql.text, raw.stmt_location or 0)
        offset += len(sql.text[offset:]) - len(sql.text[offset:].lstrip())
        before = [name for at, name in names if at <= offset]
        name = before[-1] if before else f"line {source.position(offset)[0]}"
        found.append(NamedQuery(name, raw.stmt, offset))
    return found


def _char_offset(text: str, byte_offset: int) -> int:
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
