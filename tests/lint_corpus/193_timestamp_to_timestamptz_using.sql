-- corpus: label=unsafe pg-version=16 runner=psql hazards=type-change
SET lock_timeout = '2s';
ALTER TABLE audit_log ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'Europe/Berlin';
