-- corpus: label=safe pg-version=16 runner=psql hazards=index-build,concurrently-in-transaction
-- Runs outside a transaction: psql autocommits each statement.
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_id_idx ON orders (customer_id);
