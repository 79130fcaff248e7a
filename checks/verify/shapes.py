"""A schema's declared objects as the catalog defines them, comparable across databases.

Read with `search_path` set to the schema, PostgreSQL prints the schema's own objects
unqualified (`pg_get_indexdef`, `pg_get_constraintdef`, `pg_get_expr`,
`pg_get_triggerdef`), so the same definition read from two databases, or from two
schemas of different names, compares equal: the server has normalized both
(casts, parentheses, `IN` lists as `= ANY`, operator classes), and structure (keys,
operator classes, collations, predicates) is compared, not the text anyone wrote.
Partitions are left out: their names carry dates; the runway rule looks at them.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from agentddl.checks.verify.types import Connection, fetch, session_settings

Shape = tuple[tuple[str, Any], ...]  # (field, value) pairs, in query order
PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")

_OWN = "c.relnamespace = quote_ident(%(schema)s)::regnamespace AND NOT c.relispartition"
_QUERIES: dict[str, str] = {
    "indexes": f"""
        SELECT i.relname AS name, c.relname AS table_name, am.amname AS method, x.indisunique AS unique,
               coalesce((to_jsonb(x) ->> 'indnullsnotdistinct')::boolean, false) AS nulls_not_distinct,
               ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
                     FROM generate_series(1, x.indnkeyatts) AS k) AS keys,
               ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
                     FROM generate_series(x.indnkeyatts + 1, x.indnatts) AS k) AS include,
               ARRAY(SELECT coalesce(opc.opcname, '') FROM unnest(x.indclass::oid[]) WITH ORDINALITY
                     AS k (o, n) LEFT JOIN pg_opclass AS opc ON opc.oid = k.o ORDER BY k.n) AS opclasses,
               ARRAY(SELECT coalesce(col.collname, '') FROM unnest(x.indcollation::oid[]) WITH ORDINALITY
                     AS k (o, n) LEFT JOIN pg_collation AS col ON col.oid = k.o ORDER BY k.n) AS collations,
               x.indoption::int2[]::text AS sort_options,
               coalesce(pg_get_expr(x.indpred, x.indrelid, true), '') AS predicate,
               x.indisvalid AS valid, pg_get_indexdef(x.indexrelid) AS ddl
        FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid
        JOIN pg_class AS c ON c.oid = x.indrelid JOIN pg_am AS am ON am.oid = i.relam
        WHERE {_OWN}""",
    "constraints": f"""
        SELECT con.conname AS name, c.relname AS table_name, con.contype::text AS kind,
               -- validity is reported on its own, not as a different definition
               regexp_replace(pg_get_constraintdef(con.oid, true), ' NOT VALID$', '') AS definition,
               con.convalidated AS valid,
               -- a foreign key is enforced by internal triggers (on both tables, and on each
               -- partition's clone of it): ALTER TABLE ... DISABLE TRIGGER ALL turns it off
               NOT EXISTS (SELECT FROM pg_trigger AS tg JOIN pg_constraint AS own ON own.oid = tg.tgconstraint
                           WHERE (own.oid = con.oid OR own.conparentid = con.oid)
                             AND tg.tgenabled = 'D') AS enforced,
               format('ALTER TABLE %%I ADD CONSTRAINT %%I %%s', c.relname, con.conname,
                      pg_get_constraintdef(con.oid)) AS ddl
        FROM pg_constraint AS con JOIN pg_class AS c ON c.oid = con.conrelid
        WHERE {_OWN} AND con.contype <> 'n'""",
    "columns": f"""
        SELECT c.relname || '.' || a.attname AS name, c.relname AS table_name,
               format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
               -- 18+: NOT NULL can be NOT VALID (attnotnull is set, the constraint unvalidated)
               coalesce((SELECT bool_and(con.convalidated) FROM pg_constraint AS con
                         WHERE con.conrelid = c.oid AND con.contype = 'n'
                           AND a.attnum = ANY(con.conkey)), true) AS not_null_validated,
               coalesce(pg_get_expr(d.adbin, d.adrelid, true), '') AS default,
               a.attidentity::text AS identity,
               concat_ws(' ', format_type(a.atttypid, a.atttypmod),
                         'DEFAULT ' || pg_get_expr(d.adbin, d.adrelid),
                         CASE WHEN a.attnotnull THEN 'NOT NULL' END) AS ddl
        FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE {_OWN} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped""",
    "triggers": f"""
        SELECT tg.tgname AS name, c.relname AS table_name, pg_get_triggerdef(tg.oid, true) AS definition,
               tg.tgenabled::text AS enabled
        FROM pg_trigger AS tg JOIN pg_class AS c ON c.oid = tg.tgrelid
        WHERE {_OWN} AND NOT tg.tgisinternal AND tg.tgparentid = 0""",
    "policies": f"""
        SELECT pol.polname AS name, c.relname AS table_name, pol.polcmd::text AS command,
               pol.polpermissive AS permissive,
               ARRAY(SELECT CASE WHEN r = 0 THEN 'public' ELSE r::regrole::text END
                     FROM unnest(pol.polroles) AS r ORDER BY 1) AS roles,
               coalesce(pg_get_expr(pol.polqual, pol.polrelid, true), '') AS using,
               coalesce(pg_get_expr(pol.polwithcheck, pol.polrelid, true), '') AS with_check
        FROM pg_policy AS pol JOIN pg_class AS c ON c.oid = pol.polrelid
        WHERE {_OWN}""",
    "tables": f"""
        SELECT c.relname AS name, c.relname AS table_name, c.relkind::text AS kind,
               c.relrowsecurity AS row_security, c.relforcerowsecurity AS force_row_security,
               coalesce(pg_get_partkeydef(c.oid), '') AS partition_key
        FROM pg_class AS c WHERE {_OWN} AND c.relkind IN ('r', 'p')""",
    # Function bodies are text PostgreSQL keeps as written (plpgsql is not deparsed); they
    # name their schema, which read_shapes replaces by a placeholder.
    "functions": """
        SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name,
               '' AS table_name, pg_get_function_result(p.oid) AS returns, l.lanname AS language,
               p.prosecdef AS security_definer, p.provolatile::text AS volatility,
               coalesce(array_to_string(p.proconfig, ', '), '') AS settings, p.prosrc AS body
        FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang
        WHERE p.pronamespace = quote_ident(%(schema)s)::regnamespace
          AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass
                          AND d.objid = p.oid AND d.deptype = 'e')""",
}
SCHEMA_PLACEHOLDER = "<schema>"
# Privileges by (role, object); an object is a table's name, or `FUNCTION f(args)`,
# `SEQUENCE s`, `SCHEMA` (the schema itself). Column grants (GRANT UPDATE (col) ...) are
# privileges of their own, `UPDATE (col, ...)`: has_table_privilege ignores them.
_TABLE_PRIVILEGES = f"""
    SELECT c.relname AS object, r.rolname AS role,
           ARRAY(SELECT p FROM unnest(%(privileges)s::text[]) AS p
                 WHERE has_table_privilege(r.oid, c.oid, p)
                 UNION ALL
                 SELECT p || ' (' || string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) || ')'
                 FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']) AS p
                 JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                 WHERE NOT has_table_privilege(r.oid, c.oid, p)
                   AND has_column_privilege(r.oid, c.oid, a.attnum, p)
                 GROUP BY p ORDER BY 1) AS granted
    FROM pg_class AS c CROSS JOIN pg_roles AS r
    WHERE {_OWN} AND c.relkind IN ('r', 'p') AND r.rolname = ANY(%(roles)s)"""
_SEQUENCE_PRIVILEGES = f"""
    SELECT 'SEQUENCE ' || c.relname AS object, r.rolname AS role,
           ARRAY(SELECT p FROM unnest(ARRAY['SELECT', 'UPDATE', 'USAGE']) AS p
                 WHERE has_sequence_privilege(r.oid, c.oid, p) ORDER BY p) AS granted
    FROM pg_class AS c CROSS JOIN pg_roles AS r
    WHERE {_OWN} AND c.relkind = 'S' AND r.rolname = ANY(%(roles)s)"""
_SCHEMA_PRIVILEGES = """
    SELECT 'SCHEMA' AS object, r.rolname AS role,
           ARRAY(SELECT p FROM unnest(ARRAY['CREATE', 'USAGE']) AS p
                 WHERE has_schema_privilege(r.oid, quote_ident(%(schema)s)::regnamespace, p) ORDER BY p)
             AS granted
    FROM pg_roles AS r WHERE r.rolname = ANY(%(roles)s)"""
_FUNCTION_PRIVILEGES = """
    SELECT 'FUNCTION ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS object,
           r.rolname AS role,
           CASE WHEN has_function_privilege(r.oid, p.oid, 'EXECUTE') THEN ARRAY['EXECUTE']
                ELSE ARRAY[]::text[] END AS granted
    FROM pg_proc AS p CROSS JOIN pg_roles AS r
    WHERE p.pronamespace = quote_ident(%(schema)s)::regnamespace AND r.rolname = ANY(%(roles)s)"""
_PRIVILEGE_QUERIES = (_TABLE_PRIVILEGES, _SEQUENCE_PRIVILEGES, _SCHEMA_PRIVILEGES, _FUNCTION_PRIVILEGES)


@dataclass(frozen=True)
class Shapes:
    """Definitions by kind then name; privileges by (role, object)."""

    schema: str
    objects: dict[str, dict[str, Shape]] = field(default_factory=dict)
    tables_of: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> name -> table
    privileges: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    valid: dict[str, dict[str, bool]] = field(default_factory=dict)  # indexes, constraints
    ddl: dict[str, dict[str, str]] = field(default_factory=dict)  # how to create it, where known

    def get(self, kind: str, name: str) -> Shape | None:
        return self.objects.get(kind, {}).get(name)


def search_path(connection: Connection, schema: str) -> AbstractContextManager[None]:
    """The schema alone on the search path (so its objects print unqualified), restored after."""
    quoted = fetch(connection, "SELECT quote_ident(%(s)s) AS q", {"s": schema})[0]["q"]
    return session_settings(connection, {"search_path": quoted})


def read_shapes(connection: Connection, schema: str, roles: list[str]) -> Shapes:
    """Every declared object of `schema`, and what `roles` may do to it and its tables,
    sequences and functions."""
    shapes = Shapes(schema)
    params = {"schema": schema, "roles": roles, "privileges": list(PRIVILEGES)}
    with search_path(connection, schema):
        for kind, query in _QUERIES.items():
            rows = fetch(connection, query, params)
            for row in rows:
                if "body" in row:
                    row["body"] = re.sub(rf"\b{re.escape(schema)}\b", SCHEMA_PLACEHOLDER, row["body"])
            shapes.objects[kind] = {row["name"]: _definition(row) for row in rows}
            shapes.tables_of[kind] = {row["name"]: row["table_name"] for row in rows}
            shapes.valid[kind] = {row["name"]: row.get("valid", True) for row in rows}
            shapes.ddl[kind] = {row["name"]: row.get("ddl", "") for row in rows}
        for query in _PRIVILEGE_QUERIES:
            for row in fetch(connection, query, params):
                shapes.privileges[(row["role"], row["object"])] = frozenset(row["granted"])
    return shapes


def _definition(row: dict[str, Any]) -> Shape:
    # Validity is not part of the definition: an invalid copy is reported as such.
    return tuple((key, value) for key, value in row.items() if key not in ("name", "valid", "ddl"))


def differences(found: Shape, declared: Shape) -> list[str]:
    """`field: found (declared: value)` for every field that differs."""
    wanted = dict(declared)
    return [
        f"{key.replace('_', ' ')} {_show(value)} (declared: {_show(wanted.get(key))})"
        for key, value in found
        if wanted.get(key) != value
    ]


def _show(value: Any) -> str:
    if isinstance(value, str) and len(value) > 200:  # a function body: say that, not what
        return f"<{len(value)} characters>"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return repr(value) if isinstance(value, str) else str(value)
