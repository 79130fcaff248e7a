-- corpus: label=safe pg-version=15 runner=psql hazards=constraint-validation,validate-same-transaction
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE line_items ADD CONSTRAINT line_items_quantity_positive CHECK (quantity > 0) NOT VALID;
COMMIT;

BEGIN;
ALTER TABLE line_items VALIDATE CONSTRAINT line_items_quantity_positive;
COMMIT;
