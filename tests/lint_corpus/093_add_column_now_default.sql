-- corpus: label=safe pg-version=12 runner=psql hazards=rewriting-default
-- now() is STABLE: evaluated once, stored as the column's missing value (no rewrite on 11+).
SET lock_timeout = '2s';
ALTER TABLE documents ADD COLUMN imported_at timestamptz NOT NULL DEFAULT now();
