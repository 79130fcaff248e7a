-- corpus: label=unsafe pg-version=14 runner=psql hazards=lock-with-slow-work,backfill
-- +migrate Up
ALTER TABLE invoices ADD COLUMN paid boolean;
UPDATE invoices SET paid = (paid_at IS NOT NULL);

-- +migrate Down
ALTER TABLE invoices DROP COLUMN paid;
