-- corpus: label=unsafe pg-version=16 runner=psql hazards=constraint-validation
SET lock_timeout = '2s';
ALTER TABLE orders
    ADD COLUMN priority smallint,
    ADD CONSTRAINT orders_priority_range CHECK (priority BETWEEN 0 AND 9);
