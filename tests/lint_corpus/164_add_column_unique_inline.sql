-- corpus: label=unsafe pg-version=16 runner=psql hazards=unique-inline
SET lock_timeout = '2s';
ALTER TABLE merchants ADD COLUMN external_id text UNIQUE;
