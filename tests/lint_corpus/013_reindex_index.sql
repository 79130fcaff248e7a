-- corpus: label=unsafe pg-version=14 runner=psql hazards=non-concurrent-maintenance
-- The index bloated to 40 GB after the purge; rebuild it.
REINDEX INDEX orders_customer_id_idx;
