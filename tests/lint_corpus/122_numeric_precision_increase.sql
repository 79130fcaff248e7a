-- corpus: label=safe pg-version=15 runner=psql hazards=type-change
SET lock_timeout = '2s';
ALTER TABLE prices ALTER COLUMN amount TYPE numeric(14,2);
