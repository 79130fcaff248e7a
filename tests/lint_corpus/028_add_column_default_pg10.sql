-- corpus: label=unsafe pg-version=10 runner=psql hazards=rewriting-default
SET lock_timeout = '2s';
ALTER TABLE users ADD COLUMN marketing_opt_in boolean DEFAULT false;
