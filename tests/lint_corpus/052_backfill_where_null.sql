-- corpus: label=unsafe pg-version=15 runner=psql hazards=backfill
UPDATE orders SET currency = 'USD' WHERE currency IS NULL;
