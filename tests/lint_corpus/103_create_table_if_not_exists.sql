-- corpus: label=safe pg-version=16 runner=psql hazards=none
CREATE TABLE IF NOT EXISTS schema_versions (
    version text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS schema_versions_applied_at_idx ON schema_versions (applied_at);
