"""The live partitions of a profile's partitioned table, for the runway and retention rules."""

from __future__ import annotations

from typing import Any

from agentddl.checks.db.rows import Connection, Row, fetch, session_settings

# Range bounds are read back as text (pg_get_expr of relpartbound); DEFAULT and
# MINVALUE/MAXVALUE bounds don't match and are left out.
BOUNDS_SQL = """
    SELECT child.relname AS partition, b[1]::timestamptz AS lower_bound, b[2]::timestamptz AS upper_bound
    FROM (SELECT child.relname,
                 regexp_match(pg_get_expr(child.relpartbound, child.oid),
                              'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') AS b
          FROM pg_inherits AS inh
          JOIN pg_class AS parent ON parent.oid = inh.inhparent
          JOIN pg_class AS child ON child.oid = inh.inhrelid
          WHERE parent.relnamespace = quote_ident(%(schema)s)::regnamespace
            AND parent.relname = %(table)s) AS child
    WHERE b IS NOT NULL
    ORDER BY 2
"""
# Fixed settings make the bounds' text -> timestamptz round trip exact, whatever the
# verifying session's TimeZone and DateStyle.
_UTC = {"TimeZone": "UTC", "DateStyle": "ISO, YMD"}


def bounds_and_instants(
    connection: Connection, params: dict[str, Any], instants_sql: str
) -> tuple[list[Row], Row]:
    """The bounds of the partitions of `params`' table (`schema`, `table`), oldest first,
    and the one row of `instants_sql` (the instants they are judged against), both read
    in UTC."""
    with session_settings(connection, _UTC):
        return fetch(connection, BOUNDS_SQL, params), fetch(connection, instants_sql, params)[0]
