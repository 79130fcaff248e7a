-- corpus: label=unsafe pg-version=11 runner=psql hazards=enum-add-value
BEGIN;
--
-- Raw SQL operation
--
ALTER TYPE payment_state ADD VALUE 'disputed';
COMMIT;
