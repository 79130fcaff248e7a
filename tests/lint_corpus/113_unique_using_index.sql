-- corpus: label=safe pg-version=16 runner=psql hazards=unique-inline,index-build
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS accounts_slug_key ON accounts (slug);
SET lock_timeout = '2s';
ALTER TABLE accounts ADD CONSTRAINT accounts_slug_key UNIQUE USING INDEX accounts_slug_key;
