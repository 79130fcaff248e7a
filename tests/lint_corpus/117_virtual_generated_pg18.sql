-- corpus: label=safe pg-version=18 runner=psql hazards=generated-column
SET lock_timeout = '2s';
ALTER TABLE line_items
    ADD COLUMN total_cents bigint GENERATED ALWAYS AS (quantity * unit_price_cents) VIRTUAL;
