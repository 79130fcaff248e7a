-- corpus: label=unsafe pg-version=16 runner=psql hazards=drop
SET lock_timeout = '2s';
ALTER TABLE users DROP COLUMN legacy_password_hash;
