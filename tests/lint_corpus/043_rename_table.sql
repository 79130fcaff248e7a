-- corpus: label=unsafe pg-version=15 runner=psql hazards=rename
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE customer_notes RENAME TO account_notes;
COMMIT;
