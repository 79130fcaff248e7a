-- corpus: label=unsafe pg-version=14 runner=psql hazards=type-change
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE products ALTER COLUMN weight_grams TYPE integer USING weight_grams::integer;
COMMIT;
