"""Copy up to N rows per table from a user's database into a scratch copy of its schema,
keeping every foreign key satisfied.

Tables are copied parents first (a topological order of the foreign keys; a cycle is
broken at the table with the smallest name). A table's rows are chosen on the source
among those whose NOT NULL foreign keys point at parent rows already copied; a table
with no such key is block-sampled (`TABLESAMPLE SYSTEM`) when it is much bigger than N,
unless it references itself: that one is read from its start, where rows usually come
after the rows they reference (a tree's roots, a chain's first link). In the scratch
database they land in a staging table first, where every foreign key is checked
against what was copied: a reference to a row that was not copied is set to NULL where
the key allows it (a nullable column; MATCH FULL: all of them), and
the row is dropped where it does not. A self-reference (runs.parent_run_id) is checked
against the sample itself, repeatedly, until no dropped row leaves another one
dangling. Then the rows go into the table, user triggers off where the role may
(`session_replication_role = replica`), and each sequence is set to the source's value.

The source is only read: a read-only session with statement and lock timeouts.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.core.progress import Progress
from agentddl.checks.db.connect import connect, database_error, describe_dsn

READ_SETTINGS = {"statement_timeout": "120s", "lock_timeout": "2s"}
BLOCK_SAMPLE_FACTOR = 10  # tables with more than N x this rows are block-sampled

TABLES_SQL = """
SELECT c.oid::int8, n.nspname, c.relname, c.reltuples::float8,
       array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attgenerated = '')
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                  AND d.objid = c.oid AND d.deptype = 'e')
GROUP BY 1, 2, 3, 4
ORDER BY 2, 3
"""
# Foreign keys (declared ones, not their per-partition clones), with the child's and the
# parent's root tables (a key on or to a partition counts for its partitioned table;
# pg_partition_root is NULL for a table outside any partition tree).
FOREIGN_KEYS_SQL = """
SELECT coalesce(pg_partition_root(con.conrelid), con.conrelid)::oid::int8,
       coalesce(pg_partition_root(con.confrelid), con.confrelid)::oid::int8,
       rn.nspname, r.relname, con.confmatchtype::text,
       array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, i)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.i),
       array(SELECT a.attnotnull FROM unnest(con.conkey) WITH ORDINALITY k(num, i)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.i),
       array(SELECT format_type(a.atttypid, a.atttypmod) FROM unnest(con.conkey) WITH ORDINALITY k(num, i)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.i),
       array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, i)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.i)
FROM pg_constraint con
JOIN pg_class r ON r.oid = con.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace
WHERE con.contype = 'f' AND con.conparentid = 0
"""
SEQUENCES_SQL = """
SELECT schemaname, sequencename, last_value FROM pg_sequences WHERE last_value IS NOT NULL
"""


@dataclass(frozen=True)
class Table:
    oid: int
    schema: str
    name: str
    rows: float  # pg_class.reltuples (-1: never analyzed)
    columns: tuple[str, ...]  # the columns to copy (not generated ones)

    @property
    def ident(self) -> sql.Composable:
        return sql.Identifier(self.schema, self.name)

    def __str__(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class ForeignKey:
    child: int  # root table oids
    parent: int
    parent_ident: sql.Composable  # the referenced relation itself (a partition, maybe)
    full_match: bool
    columns: tuple[str, ...]
    not_null: tuple[bool, ...]
    types: tuple[str, ...]
    parent_columns: tuple[str, ...]

    @property
    def nullable(self) -> tuple[str, ...]:
        return tuple(c for c, required in zip(self.columns, self.not_null, strict=True) if not required)

    @property
    def can_be_nulled(self) -> bool:
        """Setting its nullable columns NULL satisfies it (MATCH SIMPLE: one NULL does)."""
        return bool(self.nullable) and (not self.full_match or len(self.nullable) == len(self.columns))


def copy_sample(source_dsn: str, target_dsn: str, rows: int, progress: Progress) -> dict[str, int]:
    """Copy up to `rows` rows of every table; returns rows copied per table."""
    where = describe_dsn(source_dsn)
    try:
        with (
            connect(source_dsn, read_only=True, settings=READ_SETTINGS) as source,
            connect(target_dsn) as target,
        ):
            tables, keys = _catalog(source)
            copied: dict[str, int] = {}
            _replica_role(target)
            for table in _parents_first(tables, keys):
                if not table.columns:
                    continue  # nothing but generated columns: nothing to copy
                progress(f"sampling {table}: up to {rows:,} rows")
                copied[str(table)] = _copy_table(source, target, table, keys, rows, where)
            _set_sequences(source, target)
            return copied
    except psycopg.Error as error:
        raise database_error(error, f"sampling rows of {where}") from None


def _catalog(source: psycopg.Connection[Any]) -> tuple[list[Table], list[ForeignKey]]:
    found = source.execute(TABLES_SQL).fetchall()
    tables = [Table(oid, schema, name, rows, tuple(cols or ())) for oid, schema, name, rows, cols in found]
    known = {t.oid for t in tables}
    keys = [
        ForeignKey(child, parent, sql.Identifier(ps, pn), match == "f", *map(tuple, (c, nn, ty, pc)))
        for child, parent, ps, pn, match, c, nn, ty, pc in source.execute(FOREIGN_KEYS_SQL)
        if child in known and parent in known
    ]
    return tables, keys


def _parents_first(tables: list[Table], keys: list[ForeignKey]) -> list[Table]:
    """Tables ordered so that each comes after the tables it references (self-references
    aside); a cycle is broken at its table with the smallest name."""
    waiting = {t.oid: {k.parent for k in keys if k.child == t.oid and k.parent != t.oid} for t in tables}
    by_oid = {t.oid: t for t in tables}
    ordered: list[Table] = []
    while waiting:
        ready = sorted((by_oid[o] for o, needs in waiting.items() if not needs), key=str)
        ready = ready or [min((by_oid[o] for o in waiting), key=str)]
        for table in ready:
            ordered.append(table)
            del waiting[table.oid]
            for needs in waiting.values():
                needs.discard(table.oid)
    return ordered


def _copy_table(
    source: psycopg.Connection[Any],
    target: psycopg.Connection[Any],
    table: Table,
    keys: list[ForeignKey],
    rows: int,
    where: str,
) -> int:
    own = [k for k in keys if k.child == table.oid]
    stage = sql.Identifier(f"agentddl_sample_{table.oid}")
    columns = sql.SQL(", ").join(map(sql.Identifier, table.columns))
    target.execute(
        sql.SQL("CREATE TEMP TABLE {} AS SELECT {} FROM {} WITH NO DATA").format(stage, columns, table.ident)
    )
    query, params = _choose(target, table, own, rows)
    try:
        with source.cursor().copy(query, params) as out, target.cursor().copy(
            sql.SQL("COPY {} ({}) FROM STDIN").format(stage, columns)
        ) as into:
            for data in out:
                into.write(data)
    except psycopg.Error as error:
        raise database_error(error, f"reading rows of {table} from {where}") from None
    while sum(_satisfy(target, stage, key, table) for key in own):
        pass  # a dropped row can leave a row referencing it (a self-reference) dangling
    target.execute(
        sql.SQL("INSERT INTO {} ({}) OVERRIDING SYSTEM VALUE SELECT {} FROM {}").format(
            table.ident, columns, columns, stage
        )
    )
    count = target.execute(sql.SQL("SELECT count(*) FROM {}").format(stage)).fetchone()
    target.execute(sql.SQL("DROP TABLE {}").format(stage))
    return int(count[0]) if count else 0


def _choose(
    target: psycopg.Connection[Any], table: Table, keys: list[ForeignKey], rows: int
) -> tuple[sql.Composed, list[Any]]:
    """The COPY that reads the chosen rows on the source: those whose NOT NULL foreign
    keys reference rows already copied (read from the scratch database)."""
    columns = sql.SQL(", ").join(map(sql.Identifier, table.columns))
    required = [k for k in keys if k.parent != table.oid and not k.can_be_nulled]
    conditions: list[sql.Composable] = []
    params: list[Any] = []
    for key in required:
        condition, values = _references_copied(target, key)
        conditions.append(condition)
        params.extend(values)
    source = table.ident
    references_itself = any(k.parent == table.oid for k in keys)
    if not required and not references_itself and table.rows > rows * BLOCK_SAMPLE_FACTOR:
        percent = min(100.0, 100.0 * rows * BLOCK_SAMPLE_FACTOR / table.rows)
        source = sql.SQL("{} TABLESAMPLE SYSTEM ({})").format(table.ident, sql.Literal(round(percent, 6)))
    where = sql.SQL(" WHERE ") + sql.SQL(" AND ").join(conditions) if conditions else sql.SQL("")
    query = sql.SQL("COPY (SELECT {} FROM {}{} LIMIT {}) TO STDOUT").format(
        columns, source, where, sql.Literal(rows)
    )
    return query, params


def _references_copied(target: psycopg.Connection[Any], key: ForeignKey) -> tuple[sql.Composable, list[Any]]:
    """`(any key column IS NULL) OR (key columns) IN (the copied parent keys)`, and the
    parent keys as text arrays (one per column)."""
    as_text = (sql.SQL("{}::text").format(sql.Identifier(c)) for c in key.parent_columns)
    parent_columns = sql.SQL(", ").join(as_text)
    found = target.execute(sql.SQL("SELECT {} FROM {}").format(parent_columns, key.parent_ident)).fetchall()
    arrays = [list(values) for values in zip(*found, strict=True)] if found else [[] for _ in key.columns]
    names = [sql.Identifier(f"k{i}") for i in range(len(key.columns))]
    casts = sql.SQL(", ").join(
        sql.SQL("{}::{}").format(name, sql.SQL(kind)) for name, kind in zip(names, key.types, strict=True)
    )
    unnest = sql.SQL(", ").join(sql.SQL("%s::text[]") for _ in key.columns)
    any_null = sql.SQL(" OR ").join(sql.SQL("{} IS NULL").format(sql.Identifier(c)) for c in key.columns)
    own = sql.SQL(", ").join(map(sql.Identifier, key.columns))
    condition = sql.SQL("(({}) OR ({}) IN (SELECT {} FROM unnest({}) AS k({})))").format(
        any_null, own, casts, unnest, sql.SQL(", ").join(names)
    )
    return condition, arrays


def _satisfy(target: psycopg.Connection[Any], stage: sql.Identifier, key: ForeignKey, table: Table) -> int:
    """Null or drop the staged rows whose key references a row that was not copied (a
    self-reference: one that is not staged); returns the rows dropped."""
    parent = stage if key.parent == table.oid else key.parent_ident
    dangling = _dangling(stage, parent, key)
    if key.can_be_nulled:
        nulls = sql.SQL(", ").join(sql.SQL("{} = NULL").format(sql.Identifier(c)) for c in key.nullable)
        target.execute(sql.SQL("UPDATE {} AS s SET {} WHERE {}").format(stage, nulls, dangling))
        return 0
    return target.execute(sql.SQL("DELETE FROM {} AS s WHERE {}").format(stage, dangling)).rowcount


def _dangling(stage: sql.Identifier, parent: sql.Composable, key: ForeignKey) -> sql.Composable:
    """A staged row `s` whose key is complete and matches no parent row."""
    complete = sql.SQL(" AND ").join(
        sql.SQL("s.{} IS NOT NULL").format(sql.Identifier(c)) for c in key.columns
    )
    matches = sql.SQL(" AND ").join(
        sql.SQL("p.{} = s.{}").format(sql.Identifier(pc), sql.Identifier(c))
        for pc, c in zip(key.parent_columns, key.columns, strict=True)
    )
    return sql.SQL("{} AND NOT EXISTS (SELECT FROM {} AS p WHERE {})").format(complete, parent, matches)


def _replica_role(target: psycopg.Connection[Any]) -> None:
    """User triggers stay quiet while rows are loaded, where the role may say so."""
    with contextlib.suppress(psycopg.errors.InsufficientPrivilege):
        target.execute("SET session_replication_role = replica")


def _set_sequences(source: psycopg.Connection[Any], target: psycopg.Connection[Any]) -> None:
    """Each sequence at the source's value, so new rows do not collide with copied ones."""
    for schema, name, value in source.execute(SEQUENCES_SQL).fetchall():
        try:
            target.execute("SELECT setval(%s::regclass, %s)", [_qualified(schema, name, target), value])
        except psycopg.errors.UndefinedTable:
            continue  # a sequence of a table left out (an extension's)


def _qualified(schema: str, name: str, conn: psycopg.Connection[Any]) -> str:
    return sql.Identifier(schema, name).as_string(conn)
