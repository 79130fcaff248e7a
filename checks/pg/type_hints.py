"""Old column types that a migration tool knows but its SQL does not show.

Alembic's `op.alter_column(..., existing_type=..., type_=...)` (what autogenerate
writes) knows the type being replaced, but `ALTER COLUMN ... TYPE` carries only the new
one. The offline renderer writes the old type into the statement as a comment,
`/* agentddl: existing-type "column" VARCHAR(10) */`, and column-type-change-rewrites
reads it there. A hand-written migration may carry the same comment.
"""

from __future__ import annotations

import re

import pglast
from pglast import ast

from agentddl.checks.pg.columns import ColumnType, column_type

PREFIX = "agentddl: existing-type"
_HINT = re.compile(r"/\*\s*agentddl:\s*existing-type\s+\"([^\"]+)\"\s+(.+?)\s*\*/")


def hint_comment(column: str, rendered_type: str) -> str:
    """The comment that tells the linter `column` had `rendered_type` before."""
    return f'/* {PREFIX} "{column}" {rendered_type} */'


def existing_types(sql: str) -> dict[str, ColumnType]:
    """Column name -> old type, from the hint comments in one statement's text."""
    found: dict[str, ColumnType] = {}
    for column, text in _HINT.findall(sql):
        parsed = _parse_type(text)
        if parsed is not None:
            found[column] = parsed
    return found


def _parse_type(text: str) -> ColumnType | None:
    if "*/" in text or ";" in text:
        return None
    try:
        (raw,) = pglast.parse_sql(f"SELECT NULL::{text}")
    except (pglast.parser.ParseError, ValueError):
        return None
    targets = raw.stmt.targetList if isinstance(raw.stmt, ast.SelectStmt) else None
    target = targets[0].val if targets else None
    if not isinstance(target, ast.TypeCast) or target.typeName is None:
        return None
    return column_type(target.typeName)
