"""The Alembic revisions a live database is at: the rows of its `alembic_version` table
(`--schema-from DB`), read on a read-only connection, so lint can tell a revision that
does not descend from them (it would be skipped, or fail) without a driver of its own.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from agentddl.checks.db.connect import connect, database_error, describe_dsn

VERSION_TABLE = "alembic_version"  # Alembic's default version_table, in the search_path
READ_SETTINGS = {"statement_timeout": "10s", "lock_timeout": "2s"}


def applied_revisions(dsn: str, table: str = VERSION_TABLE) -> tuple[str, ...] | None:
    """The revision ids in `table` (one per head the database is at), sorted; None when
    the database has no such table (Alembic never ran there). Reads only."""
    try:
        with connect(dsn, read_only=True, settings=READ_SETTINGS) as conn:
            found = conn.execute("SELECT to_regclass(%s)::text", (table,)).fetchone()
            if found is None or found[0] is None:
                return None
            query = sql.SQL("SELECT version_num FROM {}").format(sql.Identifier(table))
            rows = conn.execute(query).fetchall()
    except psycopg.Error as error:
        raise database_error(error, f"reading {table} of {describe_dsn(dsn)}") from None
    return tuple(sorted(str(version) for (version,) in rows))
