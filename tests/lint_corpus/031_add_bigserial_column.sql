-- corpus: label=unsafe pg-version=16 runner=psql hazards=generated-column
SET lock_timeout = '2s';
ALTER TABLE legacy_imports ADD COLUMN id bigserial;
