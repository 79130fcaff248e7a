-- corpus: label=safe pg-version=15 runner=psql hazards=rewriting-default
SET lock_timeout = '2s';
ALTER TABLE projects ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE projects ADD COLUMN settings_updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP;
