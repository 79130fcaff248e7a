"""A live database's schema as SQL text, for `agentddl lint --schema-from DB`.

`pg_dump --schema-only` gives the tables, columns, constraints, indexes and partitions;
one `pg_restore_relation_stats(...)` call per table (the shape PostgreSQL 18's pg_dump
--statistics writes) adds its size from `pg_class` (reltuples, relpages), read on a
read-only connection with short timeouts. The PostgreSQL-semantics layer parses the
text (`pg.schema_parse.parse_schema`), so lint itself never needs a driver.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from agentddl.checks.db.connect import connect, database_error, describe_dsn
from agentddl.checks.db.dump import dump_schema

READ_SETTINGS = {"statement_timeout": "30s", "lock_timeout": "2s"}
SIZES_SQL = """
SELECT n.nspname, c.relname, c.relpages, c.reltuples
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY 1, 2
"""
STATS_CALL = sql.SQL(
    "SELECT pg_catalog.pg_restore_relation_stats('schemaname', {}, 'relname', {}, "
    "'relpages', {}::integer, 'reltuples', {}::real);"
)


def read_schema(dsn: str) -> str:
    """The schema (pg_dump) and every table's size, as SQL. Reads only."""
    return dump_schema(dsn) + "\n-- sizes (pg_class), read by agentddl\n" + relation_sizes(dsn)


def relation_sizes(dsn: str) -> str:
    """One pg_restore_relation_stats(...) call per table with a size estimate
    (reltuples is -1 for a table never vacuumed or analyzed: left out)."""
    try:
        with connect(dsn, read_only=True, settings=READ_SETTINGS) as conn:
            rows = conn.execute(SIZES_SQL).fetchall()
            calls = [
                STATS_CALL.format(schema, name, pages, tuples).as_string(conn)
                for schema, name, pages, tuples in rows
                if tuples is not None and tuples >= 0
            ]
    except psycopg.Error as error:
        raise database_error(error, f"reading table sizes of {describe_dsn(dsn)}") from None
    return "\n".join(calls) + "\n"
