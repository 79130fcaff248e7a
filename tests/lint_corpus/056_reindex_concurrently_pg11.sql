-- corpus: label=unsafe pg-version=11 runner=psql hazards=version-syntax
REINDEX INDEX CONCURRENTLY orders_customer_id_idx;
