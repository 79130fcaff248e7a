"""What `agentddl lint` reads from live databases: a schema (`--schema-from DB`) and
production's table sizes (`--sizes-from DB`), separately, so a staging database's few
rows never pass for production's.

`read_schema`: `pg_dump --schema-only` (tables, columns, constraints, indexes,
partitions) as SQL text, which the PostgreSQL-semantics layer parses
(`pg.schema_parse.parse_schema`), so lint itself never needs a driver. `table_sizes`:
each table's `pg_class` statistics (reltuples, relpages; a partitioned table's are its
leaf partitions' total), read on a read-only connection with short timeouts.
"""

from __future__ import annotations

import psycopg

from agentddl.checks.db.connect import connect, database_error, describe_dsn
from agentddl.checks.db.dump import dump_schema

READ_SETTINGS = {"statement_timeout": "30s", "lock_timeout": "2s"}
BLOCK_SIZE = 8192  # bytes per page: relpages x this is the heap's size
# reltuples is -1 for a table never vacuumed or analyzed (PostgreSQL 14+), and its
# relpages 0 then: both unknown, never "empty".
SIZES_SQL = """
SELECT n.nspname, c.relname,
       CASE WHEN bool_and(l.reltuples >= 0) THEN sum(l.relpages)::bigint END,
       CASE WHEN bool_and(l.reltuples >= 0) THEN sum(l.reltuples)::bigint END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL (
    SELECT p.relid FROM pg_partition_tree(c.oid) p WHERE p.isleaf AND c.relkind = 'p'
    UNION ALL SELECT c.oid WHERE c.relkind <> 'p'
) leaf
JOIN pg_class l ON l.oid = leaf.relid
WHERE c.relkind IN ('r', 'p', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
GROUP BY 1, 2
ORDER BY 1, 2
"""

Sizes = dict[tuple[str, str], tuple[int | None, int | None]]  # (schema, table) -> (rows, bytes)


def read_schema(dsn: str) -> str:
    """The schema as SQL (pg_dump --schema-only), without sizes. Reads only."""
    return dump_schema(dsn)


def table_sizes(dsn: str) -> Sizes:
    """Every table's estimated rows and heap bytes from pg_class (a partitioned table's:
    its leaf partitions' total). Reads only."""
    try:
        with connect(dsn, read_only=True, settings=READ_SETTINGS) as conn:
            rows = conn.execute(SIZES_SQL).fetchall()
    except psycopg.Error as error:
        raise database_error(error, f"reading table sizes of {describe_dsn(dsn)}") from None
    return {
        (schema, name): (tuples, pages * BLOCK_SIZE if pages is not None else None)
        for schema, name, pages, tuples in rows
    }
