-- corpus: label=unsafe pg-version=16 runner=psql hazards=lock-with-slow-work,backfill
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE orders ADD COLUMN total_cents bigint;
UPDATE orders SET total_cents = (total * 100)::bigint;
COMMIT;
