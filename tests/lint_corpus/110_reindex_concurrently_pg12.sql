-- corpus: label=safe pg-version=12 runner=psql hazards=non-concurrent-maintenance,version-syntax
REINDEX INDEX CONCURRENTLY orders_customer_id_idx;
