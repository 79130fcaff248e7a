-- corpus: label=safe pg-version=16 runner=psql hazards=drop
-- Relax the rule; no application code depends on a constraint existing.
SET lock_timeout = '2s';
ALTER TABLE line_items DROP CONSTRAINT IF EXISTS line_items_quantity_max;
