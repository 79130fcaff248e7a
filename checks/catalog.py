"""Read a schema back from pg_catalog, and compare it with the model that declared it.

A snapshot is plain data (dicts of definitions as PostgreSQL prints them), so two
databases reached by different paths (schema.sql vs alembic upgrade) compare with ==.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg

from agentddl.generator.model import SchemaModel

_QUERIES: dict[str, str] = {
    "relations": """
        SELECT c.relname, c.relkind::text, coalesce(pg_get_partkeydef(c.oid), ''),
               coalesce(array_to_string(c.reloptions, ','), ''), coalesce(obj_description(c.oid), ''),
               coalesce(array_to_string(c.relacl, ','), ''), c.relrowsecurity
        FROM pg_class c
        WHERE c.relnamespace = %(schema)s::regnamespace AND c.relkind IN ('r','p','S','v','m')""",
    "columns": """
        SELECT c.relname || '.' || a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               coalesce(pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity::text,
               a.attcompression::text, coalesce(col_description(c.oid, a.attnum), '')
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = %(schema)s::regnamespace AND c.relkind IN ('r','p')
          AND a.attnum > 0 AND NOT a.attisdropped AND NOT c.relispartition""",
    "constraints": """
        SELECT con.conname, c.relname, con.contype::text, pg_get_constraintdef(con.oid), con.convalidated
        FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
        WHERE c.relnamespace = %(schema)s::regnamespace AND NOT c.relispartition AND con.conparentid = 0""",
    "indexes": """
        SELECT i.relname, t.relname, pg_get_indexdef(i.oid), x.indisunique, x.indisvalid
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relnamespace = %(schema)s::regnamespace AND NOT t.relispartition""",
    "triggers": """
        SELECT tg.tgname, pg_get_triggerdef(tg.oid) FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
        WHERE c.relnamespace = %(schema)s::regnamespace AND NOT tg.tgisinternal AND tg.tgparentid = 0""",
    "functions": """
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), md5(p.prosrc)
        FROM pg_proc p WHERE p.pronamespace = %(schema)s::regnamespace""",
    "policies": """
        SELECT pol.polname, c.relname, coalesce(pg_get_expr(pol.polqual, pol.polrelid), ''),
               pol.polroles::regrole[]::text
        FROM pg_policy pol JOIN pg_class c ON c.oid = pol.polrelid
        WHERE c.relnamespace = %(schema)s::regnamespace""",
}


def snapshot(dsn: str, schema: str) -> dict[str, dict[str, tuple[Any, ...]]]:
    """Everything that defines the schema, keyed by kind then object name."""
    result: dict[str, dict[str, tuple[Any, ...]]] = {}
    with psycopg.connect(dsn) as connection:
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
    """Every constraint and index the model declares, present and valid in the catalog."""
    problems: list[Missing] = []
    constraints, indexes = snap["constraints"], snap["indexes"]
    for table in model.tables:
        expected = [(table.pk_name, "p")]
        expected += [(c.name, "c") for c in table.checks]
        expected += [(fk.name, "f") for fk in table.foreign_keys]
        expected += [(u.name, "u") for u in table.uniques]
        for name, contype in expected:
            found = constraints.get(name)
            if not found or found[0] != table.name or found[1] != contype:
                problems.append(Missing("constraint", name, table.name, "missing"))
            elif not found[3]:
                problems.append(Missing("constraint", name, table.name, "not validated"))
        for index in table.indexes:
            problems += _index_problems(
                index.name, table.name, index.unique, index.key_columns, indexes
            )
    return problems


def _index_problems(
    name: str,
    table: str,
    unique: bool,
    columns: tuple[str, ...],
    indexes: dict[str, tuple[Any, ...]],
) -> list[Missing]:
    found = indexes.get(name)
    if not found or found[0] != table:
        return [Missing("index", name, table, "missing")]
    definition, is_unique, is_valid = found[1], found[2], found[3]
    if is_unique != unique:
        return [Missing("index", name, table, f"unique={is_unique}, expected {unique}")]
    if not is_valid:
        return [Missing("index", name, table, "invalid (indisvalid = false)")]
    key = definition[definition.index("(") + 1 :]
    positions = [key.find(column) for column in columns]
    if -1 in positions or positions != sorted(positions):
        return [Missing("index", name, table, f"columns differ: {definition}")]
    return []
