-- corpus: label=unsafe pg-version=14 runner=psql hazards=backfill
UPDATE orders SET status = 'archived' WHERE status = 'closed';
