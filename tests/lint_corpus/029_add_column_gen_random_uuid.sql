-- corpus: label=unsafe pg-version=16 runner=psql hazards=rewriting-default
-- Public ids for the API; every existing order needs one.
SET lock_timeout = '2s';
ALTER TABLE orders ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
