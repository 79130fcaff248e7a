-- corpus: label=unsafe pg-version=16 runner=psql hazards=concurrently-in-transaction
BEGIN;
SET LOCAL lock_timeout = '2s';
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_id_idx ON orders (customer_id);
COMMIT;
