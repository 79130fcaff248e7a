-- corpus: label=safe pg-version=15 runner=psql hazards=lock-timeout
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE invoices ADD COLUMN voided_at timestamptz;
ALTER TABLE invoices ADD COLUMN voided_by bigint;
COMMIT;
