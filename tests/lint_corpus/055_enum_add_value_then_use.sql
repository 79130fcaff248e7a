-- corpus: label=unsafe pg-version=14 runner=psql hazards=enum-add-value
BEGIN;
ALTER TYPE ticket_status ADD VALUE IF NOT EXISTS 'archived';
UPDATE tickets SET status = 'archived' WHERE id BETWEEN 1 AND 1000;
COMMIT;
