-- corpus: label=unsafe pg-version=16 runner=psql hazards=unique-inline
SET lock_timeout = '2s';
ALTER TABLE accounts ADD CONSTRAINT accounts_slug_key UNIQUE (slug);
