"""Identifiers in generated SQL, quoted the way SQLAlchemy quotes the tables."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql

_PREPARER = postgresql.dialect().identifier_preparer  # type: ignore[no-untyped-call]


def quote(name: str) -> str:
    """Quote an identifier the way SQLAlchemy does for the tables: only when needed."""
    return str(_PREPARER.quote(name))
