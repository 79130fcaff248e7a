-- corpus: label=unsafe pg-version=15 runner=psql hazards=constraint-validation
SET lock_timeout = '2s';
ALTER TABLE line_items ADD CONSTRAINT line_items_quantity_positive CHECK (quantity > 0);
