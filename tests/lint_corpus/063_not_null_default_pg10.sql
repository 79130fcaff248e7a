-- corpus: label=unsafe pg-version=10 runner=psql hazards=rewriting-default
SET lock_timeout = '2s';
ALTER TABLE accounts ADD COLUMN seats integer NOT NULL DEFAULT 1;
