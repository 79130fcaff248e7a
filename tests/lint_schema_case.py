"""One case for `agentddl lint --schema-from`, the same for every schema source: the
schema (as schema.sql, with the sizes pg_dump --statistics writes), a migration, and the
findings expected with and without the schema, with and without `--sizes-from`. Used by
tests/unit/lint/test_schema_from.py (schema.sql) and
tests/integration/lint/test_schema_from_db.py (a live database, which also judges the
data-dependent statements on its rows)."""

# Sizes for --schema-from: under these thresholds a 1,000-row table is large, 20 rows small.
THRESHOLDS = "table_size = { info_below_rows = 100, warning_below_rows = 500 }\n"
SCHEMA_SQL = """\
CREATE TABLE public.orders (id integer, code text NOT NULL, qty integer, note varchar(40));
CREATE UNIQUE INDEX orders_id_key ON public.orders (id);
CREATE TABLE public.regions (code text PRIMARY KEY, name text NOT NULL);
SELECT pg_catalog.pg_restore_relation_stats('schemaname', 'public', 'relname', 'orders',
    'relpages', '8'::integer, 'reltuples', '1000'::real);
SELECT pg_catalog.pg_restore_relation_stats('schemaname', 'public', 'relname', 'regions',
    'relpages', '1'::integer, 'reltuples', '20'::real);
"""
MIGRATION = """\
SET lock_timeout = '2s';
ALTER TABLE public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY USING INDEX orders_id_key;
ALTER TABLE public.orders ALTER COLUMN note TYPE varchar(10);
ALTER TABLE public.orders ALTER COLUMN qty TYPE integer;
ALTER TABLE public.orders ALTER COLUMN code SET NOT NULL;
CREATE INDEX regions_name_idx ON public.regions (name);
CREATE INDEX orders_code_idx ON public.orders (code);
"""
# What --schema-from (with --sizes-from the same source) shows: the primary key's
# implicit SET NOT NULL scan (line 2), which fails if id holds a NULL (a warning: the
# rows decide), the shrinking varchar (3), the small table's index build as info (6)
# next to the large one's (7); the same type (4) and SET NOT NULL on a NOT NULL column
# (5) pass.
WITH_SCHEMA = {
    (2, "set-not-null-requires-check", "error"),
    (2, "not-null-over-nulls", "warning"),
    (3, "column-type-change-rewrites", "error"),
    (6, "require-concurrent-index-creation", "info"),
    (7, "require-concurrent-index-creation", "error"),
}
# A live database answers line 2's question: its orders.id holds no NULL.
ON_LIVE_ROWS = WITH_SCHEMA - {(2, "not-null-over-nulls", "warning")}
# --schema-from alone gives no sizes: the small table's index build is an error too.
SCHEMA_ONLY = {
    *WITH_SCHEMA - {(6, "require-concurrent-index-creation", "info")},
    (6, "require-concurrent-index-creation", "error"),
}
# Without it the linter sees neither hazard and raises the two false alarms.
WITHOUT_SCHEMA = {
    (4, "column-type-change-rewrites", "error"),
    (5, "set-not-null-requires-check", "error"),
    (5, "not-null-over-nulls", "warning"),
    (6, "require-concurrent-index-creation", "error"),
    (7, "require-concurrent-index-creation", "error"),
}
