-- corpus: label=unsafe pg-version=16 runner=psql hazards=rename
SET lock_timeout = '2s';
ALTER TABLE users RENAME COLUMN username TO handle;
