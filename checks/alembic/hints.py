"""What `op.alter_column(..., existing_type=, existing_nullable=, existing_server_default=)`
knows about the column before the change, which the ALTER COLUMN text does not show, as
one comment on its statement (the linter reads it back: `pg.type_hints`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alembic.ddl.base import AlterColumn, format_server_default

from agentddl.checks.pg import type_hints


def existing_column_hint(construct: Any, dialect: Any) -> list[str]:
    """[the comment] for an ALTER COLUMN construct that carries existing_* values, else []."""
    if not isinstance(construct, AlterColumn):
        return []
    column, existing_type = str(construct.column_name), construct.existing_type
    comments = []
    if existing_type is not None:
        rendered_type = _rendered(lambda: existing_type.compile(dialect=dialect))
        comments = [type_hints.hint_comment(column, rendered) for rendered in rendered_type]
    if construct.existing_nullable is not None:
        comments.append(type_hints.nullable_comment(column, bool(construct.existing_nullable)))
    if construct.existing_server_default not in (None, False):
        comments.extend(
            type_hints.server_default_comment(column, rendered)
            for rendered in _rendered(lambda: _server_default(construct.existing_server_default, dialect))
        )
    return [" ".join(comments)] if comments else []


def _server_default(default: Any, dialect: Any) -> str:
    return str(format_server_default(dialect.ddl_compiler(dialect, None), default))


def _rendered(render: Callable[[], object]) -> list[str]:
    """[what render() returns as text], or [] when user code cannot render (no hint:
    the rules then guess, as without one)."""
    try:
        return [str(render())]
    except Exception:
        return []
