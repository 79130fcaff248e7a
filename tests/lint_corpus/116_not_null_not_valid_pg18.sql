-- corpus: label=safe pg-version=18 runner=psql hazards=set-not-null,version-syntax
SET lock_timeout = '2s';
ALTER TABLE users ADD CONSTRAINT users_email_not_null NOT NULL email NOT VALID;
-- autocommitted; validation scans under SHARE UPDATE EXCLUSIVE only
ALTER TABLE users VALIDATE CONSTRAINT users_email_not_null;
