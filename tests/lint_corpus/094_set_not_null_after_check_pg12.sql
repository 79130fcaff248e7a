-- corpus: label=safe pg-version=12 runner=psql hazards=set-not-null,constraint-validation
SET lock_timeout = '2s';
ALTER TABLE orders ADD CONSTRAINT orders_placed_at_not_null CHECK (placed_at IS NOT NULL) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_placed_at_not_null;
ALTER TABLE orders ALTER COLUMN placed_at SET NOT NULL;
ALTER TABLE orders DROP CONSTRAINT orders_placed_at_not_null;
