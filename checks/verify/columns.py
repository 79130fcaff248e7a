"""Columns of the verified tables, for the column type rules (one query shape)."""

from __future__ import annotations

from agentddl.checks.db.sql import not_extension_member

# A column's type is seen through domains and arrays: a domain over timestamp, an array
# of varchar(20), a domain over an array of a domain over json all store the base type,
# with its problems. `domain_base` maps each domain to the type (and typmod) under all
# its layers of domains. Partitions inherit their columns: each is reported once, on the
# partitioned table.
COLUMNS_OF_TYPE_SQL = f"""
WITH RECURSIVE domain_base AS (
    SELECT d.oid AS domain, d.typbasetype AS base, d.typtypmod AS typmod
    FROM pg_type AS d WHERE d.typtype = 'd'
    UNION ALL
    SELECT db.domain, inner_domain.typbasetype, inner_domain.typtypmod
    FROM domain_base AS db JOIN pg_type AS inner_domain ON inner_domain.oid = db.base
    WHERE inner_domain.typtype = 'd'
), resolved AS (
    SELECT db.domain, db.base, db.typmod FROM domain_base AS db
    JOIN pg_type AS t ON t.oid = db.base WHERE t.typtype <> 'd'
), columns AS (
    SELECT a.attrelid, a.attname, a.atttypid, a.atttypmod,
           coalesce(outer_domain.base, a.atttypid) AS stored,
           CASE WHEN outer_domain.base IS NULL THEN a.atttypmod ELSE outer_domain.typmod END AS stored_mod,
           outer_domain.base IS NOT NULL AS is_domain
    FROM pg_attribute AS a LEFT JOIN resolved AS outer_domain ON outer_domain.domain = a.atttypid
    WHERE a.attnum > 0 AND NOT a.attisdropped
), elements AS (
    SELECT col.*, CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE col.stored END AS element
    FROM columns AS col JOIN pg_type AS t ON t.oid = col.stored
), typed AS (
    SELECT e.*, coalesce(element_domain.base, e.element) AS base_type,
           CASE WHEN element_domain.base IS NULL THEN e.stored_mod ELSE element_domain.typmod END AS base_mod,
           e.is_domain OR element_domain.base IS NOT NULL AS via_domain
    FROM elements AS e LEFT JOIN resolved AS element_domain ON element_domain.domain = e.element
)
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name,
       quote_ident(col.attname) AS column_name,
       format_type(col.atttypid, col.atttypmod)
         || CASE WHEN col.via_domain
                 THEN ' (a domain over ' || format_type(col.base_type, col.base_mod) || ')' ELSE '' END
         AS type,
       col.base_mod AS typmod
FROM typed AS col
JOIN pg_class AS c ON c.oid = col.attrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = ANY(%(schemas)s) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND {not_extension_member("c")}
  AND col.base_type IN ({{types}})
ORDER BY 1, 2
"""


def columns_of_type(*type_names: str) -> str:
    """The query for columns that store one of `type_names` (directly, in an array, or
    under domains; constant names from the rules, never input)."""
    types = ", ".join(f"'{name}'::regtype" for name in type_names)
    return COLUMNS_OF_TYPE_SQL.replace("{types}", types)
