"""Catalog reads as rows of dicts, and session settings for the length of a block."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row

Row = dict[str, Any]
Connection = psycopg.Connection[Any]


def fetch(connection: Connection, query: str, params: dict[str, Any] | None = None) -> list[Row]:
    """Rows of a query as dicts (the query is constant text; values go in `params`)."""
    with connection.cursor(row_factory=dict_row) as cursor:
        return list(cursor.execute(query.encode(), params or {}).fetchall())


@contextmanager
def session_settings(connection: Connection, settings: dict[str, str]) -> Iterator[None]:
    """Run a block with session settings (e.g. TimeZone, search_path), restoring the
    caller's after. set_config works in a read-only session too."""
    read = "SELECT current_setting(%(n)s) AS v"
    previous = {name: fetch(connection, read, {"n": name})[0]["v"] for name in settings}
    for name, value in settings.items():
        connection.execute("SELECT set_config(%s, %s, false)", (name, value))
    try:
        yield
    finally:
        for name, value in previous.items():
            connection.execute("SELECT set_config(%s, %s, false)", (name, value))
