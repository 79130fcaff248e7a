-- corpus: label=safe pg-version=16 runner=psql hazards=lock-timeout
SELECT set_config('lock_timeout', '2s', false);
ALTER TABLE customers ADD COLUMN preferred_language text;
