"""What a migration tool knows about a column but its SQL does not show.

Alembic's `op.alter_column(..., existing_type=..., existing_nullable=...,
existing_server_default=...)` (what autogenerate writes) knows the column as it was,
but `ALTER COLUMN ... TYPE` carries only the new type and `SET NOT NULL` nothing at
all. The offline renderer writes what Alembic knows into the statement as comments,
which the rules read:

    /* agentddl: existing-type "note" VARCHAR(10) */
    /* agentddl: existing-nullable "note" false */
    /* agentddl: existing-server-default "note" 'n'::text */

A hand-written migration may carry the same comments.
"""

from __future__ import annotations

import re

import pglast
from pglast import ast

from agentddl.checks.pg.columns import column_type
from agentddl.checks.pg.names import ColumnType

PREFIX = "agentddl: existing-type"
_HINT = re.compile(r"/\*\s*agentddl:\s*existing-(type|nullable|server-default)\s+\"([^\"]+)\"\s+(.+?)\s*\*/")


def hint_comment(column: str, rendered_type: str) -> str:
    """The comment that tells the linter `column` had `rendered_type` before."""
    return f'/* {PREFIX} "{column}" {rendered_type} */'


def nullable_comment(column: str, nullable: bool) -> str:
    """The comment that tells the linter whether `column` accepted NULL before."""
    return f'/* agentddl: existing-nullable "{column}" {"true" if nullable else "false"} */'


def server_default_comment(column: str, default_sql: str) -> str:
    """The comment that tells the linter `column`'s DEFAULT before (an SQL expression)."""
    return f'/* agentddl: existing-server-default "{column}" {default_sql.replace("*/", "* /")} */'


def existing_types(sql: str) -> dict[str, ColumnType]:
    """Column name -> old type, from the hint comments in one statement's text."""
    found: dict[str, ColumnType] = {}
    for column, text in _hints(sql, "type"):
        parsed = _parse_type(text)
        if parsed is not None:
            found[column] = parsed
    return found


def existing_nullable(sql: str) -> dict[str, bool]:
    """Column name -> whether it accepted NULL before, from the hint comments."""
    return {column: text.lower() == "true" for column, text in _hints(sql, "nullable") if _boolean(text)}


def existing_defaults(sql: str) -> dict[str, str]:
    """Column name -> its DEFAULT expression before, from the hint comments."""
    return dict(_hints(sql, "server-default"))


def _hints(sql: str, kind: str) -> list[tuple[str, str]]:
    if "agentddl:" not in sql:
        return []
    return [(column, text) for found, column, text in _HINT.findall(sql) if found == kind]


def _boolean(text: str) -> bool:
    return text.lower() in ("true", "false")


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
