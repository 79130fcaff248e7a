-- corpus: label=safe pg-version=16 runner=psql hazards=lock-with-slow-work,backfill
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE accounts ADD COLUMN tier text;
-- the house account is the only one that needs a tier today
UPDATE accounts SET tier = 'internal' WHERE id = 1;
COMMIT;
