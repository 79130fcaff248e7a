-- corpus: label=safe pg-version=16 runner=psql hazards=rename
-- Index names are not referenced by application queries.
ALTER INDEX IF EXISTS index_orders_on_customer RENAME TO orders_customer_id_idx;
