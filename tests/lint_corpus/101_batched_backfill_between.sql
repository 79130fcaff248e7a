-- corpus: label=safe pg-version=16 runner=psql hazards=backfill
-- Batch 1 of the currency backfill; the job runner repeats it with the next range.
UPDATE orders SET currency = 'USD' WHERE id BETWEEN 1 AND 10000 AND currency IS NULL;
