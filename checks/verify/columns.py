"""Columns of the verified tables, for the column type rules (one query shape)."""

from __future__ import annotations

from agentddl.checks.verify.sql import not_extension_member

# Partitions inherit their columns: each is reported once, on the partitioned table.
COLUMNS_OF_TYPE_SQL = f"""
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS table_name,
       quote_ident(a.attname) AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
       a.atttypmod AS typmod
FROM pg_attribute AS a
JOIN pg_class AS c ON c.oid = a.attrelid
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = ANY(%(schemas)s) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND {not_extension_member('c')}
  AND a.attnum > 0 AND NOT a.attisdropped
  AND a.atttypid IN ({{types}})
ORDER BY 1, 2
"""


def columns_of_type(*type_names: str) -> str:
    """The query for columns whose type (or array of it) is one of `type_names`
    (constant names from the rules, never input)."""
    types = ", ".join(f"'{name}'::regtype, '{name}[]'::regtype" for name in type_names)
    return COLUMNS_OF_TYPE_SQL.replace("{types}", types)
