"""The catalog queries behind `read_snapshot`: one per kind of object, each row a name,
the table it belongs to and the fields that define it (as PostgreSQL deparses them with
the schema alone on the search path), plus each role's effective privileges.

Row fields other than `name`, `table_name`, `valid` and `ddl` are the object's shape:
two objects are the same when every field is equal.
"""

from __future__ import annotations

PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
_SCHEMA = "c.relnamespace = quote_ident(%(schema)s)::regnamespace"
_OWN = f"{_SCHEMA} AND NOT c.relispartition"  # partitions: their own kind
QUERIES: dict[str, str] = {
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
               coalesce(pg_get_partkeydef(c.oid), '') AS partition_key,
               c.relpersistence::text AS persistence, coalesce(c.reloptions, ARRAY[]::text[]) AS options
        FROM pg_class AS c WHERE {_OWN} AND c.relkind IN ('r', 'p')""",
    # Function bodies are text PostgreSQL keeps as written (plpgsql is not deparsed); they
    # name their schema, which read_snapshot replaces by a placeholder.
    "functions": """
        SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name,
               '' AS table_name, pg_get_function_result(p.oid) AS returns, l.lanname AS language,
               p.prosecdef AS security_definer, p.provolatile::text AS volatility,
               coalesce(array_to_string(p.proconfig, ', '), '') AS settings, p.prosrc AS body
        FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang
        WHERE p.pronamespace = quote_ident(%(schema)s)::regnamespace
          AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass
                          AND d.objid = p.oid AND d.deptype = 'e')""",
    # Kinds no verify rule compares, for diffs of whole catalogs (apply, migration tests):
    # partitions (names carry dates: compare two installs made at the same time), storage
    # of columns, sequences, views and comments.
    "partitions": f"""
        SELECT c.relname AS name, parent.relname AS table_name, c.relkind::text AS kind,
               pg_get_expr(c.relpartbound, c.oid, true) AS bound, c.relpersistence::text AS persistence,
               coalesce(c.reloptions, ARRAY[]::text[]) AS options
        FROM pg_class AS c JOIN pg_inherits AS inh ON inh.inhrelid = c.oid
        JOIN pg_class AS parent ON parent.oid = inh.inhparent
        WHERE {_SCHEMA} AND c.relispartition AND c.relkind IN ('r', 'p')""",
    "column_storage": f"""
        SELECT c.relname || '.' || a.attname AS name, c.relname AS table_name,
               a.attcompression::text AS compression, a.attstorage::text AS storage
        FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
        WHERE {_OWN} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped""",
    "sequences": f"""
        SELECT c.relname AS name, coalesce(owner.relname, '') AS table_name,
               format_type(s.seqtypid, NULL) AS type, s.seqstart AS start, s.seqincrement AS increment,
               s.seqmin AS min, s.seqmax AS max, s.seqcache AS cache, s.seqcycle AS cycle,
               coalesce(a.attname::text, '') AS owned_by
        FROM pg_sequence AS s JOIN pg_class AS c ON c.oid = s.seqrelid
        LEFT JOIN pg_depend AS d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
             AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
        LEFT JOIN pg_class AS owner ON owner.oid = d.refobjid
        LEFT JOIN pg_attribute AS a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
        WHERE {_OWN}""",
    "views": f"""
        SELECT c.relname AS name, c.relname AS table_name, c.relkind::text AS kind,
               pg_get_viewdef(c.oid, true) AS definition
        FROM pg_class AS c WHERE {_OWN} AND c.relkind IN ('v', 'm')""",
    "comments": f"""
        SELECT c.relname AS name, c.relname AS table_name, d.description AS comment
        FROM pg_class AS c JOIN pg_description AS d
             ON d.classoid = 'pg_class'::regclass AND d.objoid = c.oid AND d.objsubid = 0
        WHERE {_OWN}
        UNION ALL
        SELECT c.relname || '.' || a.attname, c.relname, d.description
        FROM pg_class AS c JOIN pg_description AS d ON d.classoid = 'pg_class'::regclass AND d.objoid = c.oid
        JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = d.objsubid
        WHERE {_OWN} AND d.objsubid > 0
        UNION ALL
        SELECT 'FUNCTION ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')', '',
               d.description
        FROM pg_proc AS p JOIN pg_description AS d ON d.classoid = 'pg_proc'::regclass AND d.objoid = p.oid
        WHERE p.pronamespace = quote_ident(%(schema)s)::regnamespace""",
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
PRIVILEGE_QUERIES = (_TABLE_PRIVILEGES, _SEQUENCE_PRIVILEGES, _SCHEMA_PRIVILEGES, _FUNCTION_PRIVILEGES)


