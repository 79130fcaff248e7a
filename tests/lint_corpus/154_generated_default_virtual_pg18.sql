-- corpus: label=safe pg-version=18 runner=psql hazards=generated-column
-- On PostgreSQL 18 a generated column is VIRTUAL unless STORED is written.
SET lock_timeout = '2s';
ALTER TABLE products ADD COLUMN name_search text GENERATED ALWAYS AS (lower(name));
