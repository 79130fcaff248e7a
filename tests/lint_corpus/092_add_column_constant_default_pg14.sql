-- corpus: label=safe pg-version=14 runner=psql hazards=rewriting-default,add-not-null-column
SET lock_timeout = '2s';
ALTER TABLE accounts ADD COLUMN is_active boolean NOT NULL DEFAULT true;
