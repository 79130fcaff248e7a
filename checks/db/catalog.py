"""Read a schema back from pg_catalog, and compare it with the model that declared it.

A snapshot is plain data (dicts of definitions as PostgreSQL prints them), so two
databases reached by different paths (schema.sql vs alembic upgrade) compare with ==.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentddl.checks.db.connect import connect
from agentddl.generator.model import SchemaModel
from agentddl.generator.model.types import Index, Table

_QUERIES: dict[str, str] = {
    "relations": """
        SELECT c.relname, c.relkind::text, coalesce(pg_get_partkeydef(c.oid), ''),
               coalesce(array_to_string(c.reloptions, ','), ''), coalesce(obj_description(c.oid), ''),
               coalesce(array_to_string(c.relacl, ','), ''), c.relrowsecurity
        FROM pg_class c
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace
          AND c.relkind IN ('r','p','S','v','m')""",
    "columns": """
        SELECT c.relname || '.' || a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               coalesce(pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity::text,
               a.attcompression::text, coalesce(col_description(c.oid, a.attnum), '')
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace AND c.relkind IN ('r','p')
          AND a.attnum > 0 AND NOT a.attisdropped AND NOT c.relispartition""",
    "constraints": """
        SELECT con.conname, c.relname, con.contype::text, pg_get_constraintdef(con.oid), con.convalidated
        FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace
          AND NOT c.relispartition AND con.conparentid = 0""",
    "indexes": """
        SELECT i.relname, t.relname, pg_get_indexdef(i.oid), x.indisunique, x.indisvalid
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relnamespace = quote_ident(%(schema)s)::regnamespace AND NOT t.relispartition""",
    # Structure, for compare_with_model: key columns in order (DESC marked, expressions as
    # "(expression)"), method, partial or not; constraint columns and referenced columns.
    "index_keys": """
        SELECT i.relname, t.relname, am.amname, x.indisunique,
               coalesce((to_jsonb(x) ->> 'indnullsnotdistinct')::boolean, false), x.indpred IS NOT NULL,
               ARRAY(SELECT CASE WHEN k.attnum = 0 THEN '(expression)' ELSE a.attname::text END
                            || CASE WHEN x.indoption[k.n - 1] & 1 = 1 THEN ' DESC' ELSE '' END
                     FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k (attnum, n)
                     LEFT JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
                     WHERE k.n <= x.indnkeyatts ORDER BY k.n)
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        JOIN pg_am am ON am.oid = i.relam
        WHERE t.relnamespace = quote_ident(%(schema)s)::regnamespace AND NOT t.relispartition""",
    "constraint_keys": """
        SELECT con.conname, c.relname, con.contype::text,
               ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k (attnum, n)
                     JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                     ORDER BY k.n),
               coalesce(r.relname, ''),
               ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k (attnum, n)
                     JOIN pg_attribute AS a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
                     ORDER BY k.n),
               con.confdeltype::text
        FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
        LEFT JOIN pg_class r ON r.oid = con.confrelid
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace
          AND NOT c.relispartition AND con.conparentid = 0
          AND con.contype IN ('p', 'u', 'f')""",
    "triggers": """
        SELECT tg.tgname, pg_get_triggerdef(tg.oid) FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace
          AND NOT tg.tgisinternal AND tg.tgparentid = 0""",
    "functions": """
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), md5(p.prosrc)
        FROM pg_proc p WHERE p.pronamespace = quote_ident(%(schema)s)::regnamespace""",
    "policies": """
        SELECT pol.polname, c.relname, coalesce(pg_get_expr(pol.polqual, pol.polrelid), ''),
               pol.polroles::regrole[]::text
        FROM pg_policy pol JOIN pg_class c ON c.oid = pol.polrelid
        WHERE c.relnamespace = quote_ident(%(schema)s)::regnamespace""",
}


def snapshot(dsn: str, schema: str) -> dict[str, dict[str, tuple[Any, ...]]]:
    """Everything that defines the schema, keyed by kind then object name."""
    result: dict[str, dict[str, tuple[Any, ...]]] = {}
    with connect(dsn, autocommit=False) as connection:
        for kind, sql in _QUERIES.items():
            rows = connection.execute(sql, {"schema": schema}).fetchall()
            result[kind] = {
                f"{row[0]}|{row[1]}" if kind == "functions" else str(row[0]): tuple(row[1:])
                for row in rows
            }
    return result


@dataclass(frozen=True)
class Missing:
    kind: str  # "constraint" | "index"
    name: str
    table: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} {self.table}.{self.name}: {self.detail}"


def compare_with_model(
    model: SchemaModel, snap: dict[str, dict[str, tuple[Any, ...]]]
) -> list[Missing]:
    """Every constraint and index the model declares, present and valid in the catalog with
    the declared structure: index method, uniqueness, key columns in order (with DESC),
    partial or not; key and foreign key columns, referenced table and columns, ON DELETE.
    (`agentddl verify --profile` compares full definitions against a reference install.)"""
    problems: list[Missing] = []
    for table in model.tables:
        problems += _constraint_problems(table, snap)
        for index in table.indexes:
            problems += _index_problems(index, snap)
    return problems


_ON_DELETE = {"CASCADE": "c", "RESTRICT": "r", "NO ACTION": "a", "SET NULL": "n"}


def _declared_constraints(table: Table) -> list[tuple[str, str, tuple[Any, ...] | None]]:
    """(name, contype, expected key structure or None for CHECKs) of every declared constraint."""
    found: list[tuple[str, str, tuple[Any, ...] | None]] = [
        (table.pk_name, "p", (list(table.primary_key), "", [], " "))
    ]
    found += [(c.name, "c", None) for c in table.checks]
    found += [
        (fk.name, "f", (list(fk.columns), fk.ref_table, list(fk.ref_columns), _ON_DELETE[fk.on_delete]))
        for fk in table.foreign_keys
    ]
    found += [(u.name, "u", (list(u.columns), "", [], " ")) for u in table.uniques]
    return found


def _constraint_problems(table: Table, snap: dict[str, dict[str, tuple[Any, ...]]]) -> list[Missing]:
    problems: list[Missing] = []
    for name, contype, structure in _declared_constraints(table):
        found = snap["constraints"].get(name)
        if not found or found[0] != table.name or found[1] != contype:
            problems.append(Missing("constraint", name, table.name, "missing"))
        elif not found[3]:
            problems.append(Missing("constraint", name, table.name, "not validated"))
        elif structure is not None and snap["constraint_keys"].get(name, ())[2:] != structure:
            problems.append(Missing("constraint", name, table.name, f"differs: {found[2]}"))
    return problems


def _index_problems(index: Index, snap: dict[str, dict[str, tuple[Any, ...]]]) -> list[Missing]:
    found, keys = snap["indexes"].get(index.name), snap["index_keys"].get(index.name)
    if not found or not keys or found[0] != index.table:
        return [Missing("index", index.name, index.table, "missing")]
    if not found[3]:
        return [Missing("index", index.name, index.table, "invalid (indisvalid = false)")]
    declared_keys = ["(expression)" if c.startswith("(") else c.removesuffix(" ASC") for c in index.columns]
    expected = (index.method, index.unique, index.nulls_not_distinct, index.where is not None, declared_keys)
    if keys[1:] != expected:
        return [Missing("index", index.name, index.table, f"differs from the model: {found[1]}")]
    return []
