-- corpus: label=unsafe pg-version=16 runner=psql hazards=set-not-null
-- All rows have an email since the signup fix shipped.
SET lock_timeout = '2s';
ALTER TABLE users ALTER COLUMN email SET NOT NULL;
