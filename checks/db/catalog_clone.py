"""A sample clone of one schema, rebuilt from the catalog: where audit's what-if
questions are asked.

`clone_schema(source, target, schema, rows)` recreates the schema's tables in the
target (an empty scratch database), as the catalog defines them, with no pg_dump (so
any client works with any server 14-18):
- the extensions the source has (where the target's server has them), its enum types
  and domains;
- tables with their columns (types, collations, NOT NULL), partitioned tables with
  their partitions (bounds as `pg_get_expr` prints them);
- a sample of each table's rows: `TABLESAMPLE SYSTEM` of the pages that hold about
  `rows` of them (reading those pages only, under ACCESS SHARE), the whole table when
  it holds fewer;
- then primary keys, unique, check and exclusion constraints, and every other index
  (`pg_get_constraintdef`, `pg_get_indexdef`), and ANALYZE.
Foreign keys are left out (a sample is not closed under them), as are defaults,
triggers, policies, grants and functions: the clone is for planning and timing reads.
An object the target refuses (a function it lacks in an index expression) is skipped
and named in `CloneReport.skipped`; the source is only read.

Why a sample and not the source's statistics alone: PostgreSQL 18 can restore planner
statistics (`pg_restore_relation_stats`), but the planner sizes a table by its pages
on disk and plans an empty one as empty, whatever its restored reltuples say (measured
on 18: a restored 1,000,000-row table planned as `rows=1`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.db.sql import not_extension_member

Connection = psycopg.Connection[Any]

_EXTENSIONS = """
SELECT e.extname, n.nspname FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
WHERE e.extname NOT IN ('plpgsql', 'pg_stat_statements', 'hypopg') ORDER BY 1
"""
_ENUMS = """
SELECT t.typname, ARRAY(SELECT e.enumlabel::text FROM pg_enum AS e WHERE e.enumtypid = t.oid
                        ORDER BY e.enumsortorder)
FROM pg_type AS t JOIN pg_namespace AS n ON n.oid = t.typnamespace
WHERE n.nspname = %(schema)s AND t.typtype = 'e'
  AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_type'::regclass
                  AND d.objid = t.oid AND d.deptype = 'e')
ORDER BY 1
"""
_DOMAINS = """
SELECT t.typname, format_type(t.typbasetype, t.typtypmod)
FROM pg_type AS t JOIN pg_namespace AS n ON n.oid = t.typnamespace
WHERE n.nspname = %(schema)s AND t.typtype = 'd' ORDER BY 1
"""
_TABLES = f"""
SELECT c.oid, c.relname, c.relkind, c.relispartition,
    (SELECT p.relname FROM pg_inherits AS i JOIN pg_class AS p ON p.oid = i.inhparent
     WHERE i.inhrelid = c.oid) AS parent,
    CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound,
    CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partition_key,
    greatest(c.reltuples, 0) AS rows
FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = %(schema)s AND c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
  AND {not_extension_member("c")}
ORDER BY c.relname
"""
_COLUMNS = """
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
    CASE WHEN a.attcollation <> t.typcollation THEN co.collname END
FROM pg_attribute AS a JOIN pg_type AS t ON t.oid = a.atttypid
LEFT JOIN pg_collation AS co ON co.oid = a.attcollation
WHERE a.attrelid = %(table)s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
"""
_CONSTRAINTS = """
SELECT c.relname, k.conname, pg_get_constraintdef(k.oid)
FROM pg_constraint AS k JOIN pg_class AS c ON c.oid = k.conrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = %(schema)s AND k.contype IN ('p', 'u', 'c', 'x') AND k.conislocal
  AND k.conparentid = 0
ORDER BY k.contype = 'c', c.relname, k.conname
"""
_INDEXES = """
SELECT i.relname, pg_get_indexdef(x.indexrelid)
FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid
JOIN pg_namespace AS n ON n.oid = i.relnamespace
WHERE n.nspname = %(schema)s
  AND NOT EXISTS (SELECT FROM pg_constraint AS k
                  WHERE k.conindid = x.indexrelid AND k.contype IN ('p', 'u', 'x'))
  AND NOT EXISTS (SELECT FROM pg_inherits AS h WHERE h.inhrelid = x.indexrelid)
ORDER BY 1
"""


@dataclass
class CloneReport:
    tables: int = 0
    rows: int = 0  # rows copied, all tables
    skipped: list[str] = field(default_factory=list)  # "index x: <why>", ...


def clone_schema(
    source: Connection,
    target: Connection,
    schema: str,
    rows: int,
    progress: Callable[[str], None] = lambda _: None,
) -> CloneReport:
    """The schema's tables, a sample of up to `rows` rows each, keys and indexes.
    Both connections autocommit; the source is only read."""
    report = CloneReport()
    _extensions(source, target, report)
    _execute(
        target,
        report,
        f"schema {schema}",
        sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)),
    )
    _types(source, target, schema, report)
    tables = _fetch(source, _TABLES, {"schema": schema})
    created = _tables(source, target, schema, tables, report)
    for table in (t for t in tables if t["relkind"] == "r" and t["relname"] in created):
        progress(f"clone: sampling {schema}.{table['relname']}")
        try:
            report.rows += _copy(source, target, schema, table, rows)
        except psycopg.Error as error:  # the table stays empty in the clone, said so
            report.skipped.append(
                f"rows of {table['relname']}: {(error.diag.message_primary or str(error)).strip()}"
            )
            continue
        report.tables += 1
    for name, statement in _definitions(source, schema):
        _execute(target, report, name, sql.SQL(statement))
    progress("clone: analyzing")
    target.execute(sql.SQL("ANALYZE"))
    return report


def _fetch(conn: Connection, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(query.encode(), params)
    names = [d.name for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _execute(target: Connection, report: CloneReport, what: str, statement: sql.SQL | sql.Composed) -> bool:
    try:
        with target.transaction():
            target.execute(statement)
    except psycopg.Error as error:
        report.skipped.append(f"{what}: {(error.diag.message_primary or str(error)).strip()}")
        return False
    return True


def _extensions(source: Connection, target: Connection, report: CloneReport) -> None:
    for name, schema in source.execute(_EXTENSIONS).fetchall():
        create_schema = sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))
        create = sql.SQL("CREATE EXTENSION IF NOT EXISTS {} SCHEMA {}").format(
            sql.Identifier(name), sql.Identifier(schema)
        )
        _execute(target, report, f"extension {name}", create_schema + sql.SQL("; ") + create)


def _types(source: Connection, target: Connection, schema: str, report: CloneReport) -> None:
    for name, labels in source.execute(_ENUMS, {"schema": schema}).fetchall():
        statement = sql.SQL("CREATE TYPE {}.{} AS ENUM ({})").format(
            sql.Identifier(schema), sql.Identifier(name), sql.SQL(", ").join(sql.Literal(v) for v in labels)
        )
        _execute(target, report, f"type {name}", statement)
    for name, base in source.execute(_DOMAINS, {"schema": schema}).fetchall():
        statement = sql.SQL("CREATE DOMAIN {}.{} AS {}").format(
            sql.Identifier(schema), sql.Identifier(name), sql.SQL(base)
        )
        _execute(target, report, f"domain {name}", statement)


def _tables(
    source: Connection, target: Connection, schema: str, tables: list[dict[str, Any]], report: CloneReport
) -> set[str]:
    """Parents before their partitions; a partition whose parent failed is skipped."""
    created: set[str] = set()
    pending = list(tables)
    while pending:
        ready = [t for t in pending if not t["relispartition"] or t["parent"] in created]
        if not ready:
            report.skipped += [f"table {t['relname']}: its parent was not created" for t in pending]
            break
        for table in ready:
            pending.remove(table)
            if _execute(target, report, f"table {table['relname']}", _create_table(source, schema, table)):
                created.add(table["relname"])
    return created


def _create_table(source: Connection, schema: str, table: dict[str, Any]) -> sql.Composed:
    name = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table["relname"]))
    by = sql.SQL(f" PARTITION BY {table['partition_key']}") if table["partition_key"] else sql.SQL("")
    if table["relispartition"]:
        parent = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table["parent"]))
        return sql.SQL("CREATE TABLE {} PARTITION OF {} {}{}").format(
            name, parent, sql.SQL(table["bound"]), by
        )
    columns = [
        sql.SQL("{} {}{}{}").format(
            sql.Identifier(column),
            sql.SQL(type_name),
            sql.SQL(" COLLATE {}").format(sql.Identifier(collation)) if collation else sql.SQL(""),
            sql.SQL(" NOT NULL") if not_null else sql.SQL(""),
        )
        for column, type_name, not_null, collation in source.execute(
            _COLUMNS, {"table": table["oid"]}
        ).fetchall()
    ]
    return sql.SQL("CREATE TABLE {} ({}){}").format(name, sql.SQL(", ").join(columns), by)


def _copy(source: Connection, target: Connection, schema: str, table: dict[str, Any], rows: int) -> int:
    """A sample of the table's rows (all of them when it holds fewer than `rows`), its
    columns named (a partition attached from a table of its own may order them otherwise)."""
    name = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table["relname"]))
    columns = sql.SQL(", ").join(
        sql.Identifier(c) for c, *_ in source.execute(_COLUMNS, {"table": table["oid"]}).fetchall()
    )
    total = float(table["rows"])
    sample: sql.Composable = sql.SQL("")
    if total > rows:
        percent = sql.Literal(round(100.0 * rows / total, 4))
        sample = sql.SQL(" TABLESAMPLE SYSTEM ({}) REPEATABLE (1)").format(percent)
    # the comment tells the audit's --from-stats this read is its own
    read = sql.SQL("/* agentddl */ COPY (SELECT {} FROM {}{}) TO STDOUT").format(columns, name, sample)
    write = sql.SQL("COPY {} ({}) FROM STDIN").format(name, columns)
    copied = 0
    with target.transaction(), target.cursor().copy(write) as sink, source.cursor().copy(read) as rows_out:
        for data in rows_out:
            sink.write(data)
            copied += bytes(data).count(b"\n")
    return copied


def _definitions(source: Connection, schema: str) -> list[tuple[str, str]]:
    """Constraints (primary and unique keys first, checks last), then the other indexes."""
    found = []
    for table, name, definition in source.execute(_CONSTRAINTS, {"schema": schema}).fetchall():
        statement = sql.SQL("ALTER TABLE {}.{} ADD CONSTRAINT {} ").format(
            sql.Identifier(schema), sql.Identifier(table), sql.Identifier(name)
        )
        found.append((f"constraint {name}", statement.as_string(source) + definition))
    found += [
        (f"index {name}", definition)
        for name, definition in source.execute(_INDEXES, {"schema": schema}).fetchall()
    ]
    return found
