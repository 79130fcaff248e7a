-- corpus: label=safe pg-version=14 runner=psql hazards=lock-timeout
ALTER TABLE integrations ADD COLUMN settings jsonb;
COMMENT ON COLUMN integrations.settings IS 'Provider-specific options, validated by the app.';
