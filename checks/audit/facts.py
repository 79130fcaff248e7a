"""The catalog facts plan reading needs, read once per audit (and after each drop)."""

from __future__ import annotations

from typing import Any

import psycopg

from agentddl.checks.audit.plan import Catalog

_RELATIONS = """
SELECT c.relname, c.relkind, greatest(c.reltuples, 0) AS rows, c.relpages AS pages,
    (SELECT p.relname FROM pg_inherits AS i JOIN pg_class AS p ON p.oid = i.inhparent
     WHERE i.inhrelid = c.oid) AS parent
FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'p', 'i', 'I')
"""
_INDEXES = """
SELECT ic.relname AS index, tc.relname AS table, x.indisunique AS is_unique,
    (SELECT am.amname FROM pg_am AS am WHERE am.oid = ic.relam) AS method,
    x.indpred IS NOT NULL AS partial,
    EXISTS (SELECT FROM pg_constraint AS k WHERE k.conindid = x.indexrelid
            AND k.contype IN ('p', 'u', 'x')) AS backs_constraint,
    ARRAY(SELECT CASE WHEN k.attnum = 0 THEN '(expression)' ELSE a.attname END
          FROM unnest(x.indkey[0:x.indnkeyatts - 1]) WITH ORDINALITY AS k(attnum, ord)
          LEFT JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
          ORDER BY k.ord) AS columns,
    ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) AS k) AS defs,
    coalesce(pg_get_expr(x.indpred, x.indrelid, true), '') AS predicate
FROM pg_index AS x
JOIN pg_class AS ic ON ic.oid = x.indexrelid
JOIN pg_class AS tc ON tc.oid = x.indrelid
JOIN pg_namespace AS n ON n.oid = ic.relnamespace
WHERE n.nspname = %(schema)s
"""
_PARTITION_KEYS = """
SELECT c.relname, ARRAY(SELECT a.attname FROM unnest(pt.partattrs) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute AS a ON a.attrelid = pt.partrelid AND a.attnum = k.attnum ORDER BY k.ord) AS key
FROM pg_partitioned_table AS pt JOIN pg_class AS c ON c.oid = pt.partrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = %(schema)s
"""


_COLUMNS = """
SELECT c.relname, a.attname, t.typname
FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace JOIN pg_type AS t ON t.oid = a.atttypid
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum
"""


def read_catalog(conn: psycopg.Connection[Any], schema: str) -> Catalog:
    params = {"schema": schema}
    relations = conn.execute(_RELATIONS, params).fetchall()
    parent_of = {name: parent for name, _, _, _, parent in relations if parent}

    def root(name: str) -> str:
        while name in parent_of:
            name = parent_of[name]
        return name

    rows: dict[str, float] = {}
    pages: dict[str, float] = {}
    partitions: dict[str, int] = {}
    leaves: dict[str, list[str]] = {}
    for name, kind, count, size, parent in relations:  # an index's size is its entries
        rows[name] = rows.get(name, 0.0) + float(count)
        pages[name] = pages.get(name, 0.0) + float(size)
        if parent:
            top = root(name)
            rows[top] = rows.get(top, 0.0) + float(count)
            pages[top] = pages.get(top, 0.0) + float(size)
            if kind in ("r", "p"):
                partitions[top] = partitions.get(top, 0) + 1
            if kind == "r":
                leaves.setdefault(top, []).append(name)
    indexes = conn.execute(_INDEXES, params).fetchall()
    roots = {index: root(index) for index, *_ in indexes}
    columns: dict[str, list[str]] = {}
    types: dict[tuple[str, str], str] = {}
    for table, column, type_name in conn.execute(_COLUMNS, params).fetchall():
        columns.setdefault(table, []).append(column)
        types[(table, column)] = type_name
    return Catalog(
        schema=schema,
        rows=rows,
        parent={n: root(n) for n in parent_of},
        partitions=partitions,
        partition_key={name: tuple(key) for name, key in conn.execute(_PARTITION_KEYS, params).fetchall()},
        index_table={roots[i]: root(t) for i, t, *_ in indexes},
        index_columns={roots[i]: tuple(cols) for i, _, _, _, _, _, cols, _, _ in indexes},
        unique=frozenset(roots[i] for i, _, u, *_ in indexes if u),
        constraint_indexes=frozenset(roots[i] for i, _, _, _, _, b, *_ in indexes if b),
        lossy=frozenset(roots[i] for i, _, _, method, *_ in indexes if method == "brin"),
        partial=frozenset(roots[i] for i, _, _, _, partial, *_ in indexes if partial),
        methods={roots[i]: str(method) for i, _, _, method, *_ in indexes},
        leaves={table: tuple(sorted(names)) for table, names in leaves.items()},
        columns={table: tuple(names) for table, names in columns.items()},
        types=types,
        index_defs={roots[i]: tuple(defs) for i, *_, defs, _ in indexes},
        predicates={roots[i]: str(predicate) for i, *_, predicate in indexes},
        pages=pages,
    )
