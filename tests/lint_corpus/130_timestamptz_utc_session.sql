-- corpus: label=safe pg-version=16 runner=psql hazards=type-change
-- With the session in UTC, timestamp -> timestamptz is binary-compatible (PostgreSQL 12+).
SET timezone = 'UTC';
SET lock_timeout = '2s';
ALTER TABLE audit_log ALTER COLUMN created_at TYPE timestamptz;
