-- corpus: label=unsafe pg-version=15 runner=psql hazards=backfill
-- "Batched" by date range, but the range is the whole history of the table.
UPDATE orders SET currency = 'USD'
WHERE created_at BETWEEN '2019-01-01' AND '2024-12-31' AND currency IS NULL;
