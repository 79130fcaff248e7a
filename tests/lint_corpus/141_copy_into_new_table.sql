-- corpus: label=safe pg-version=15 runner=psql hazards=backfill
-- Snapshot for the finance export; reads orders, takes no write-blocking lock.
CREATE TABLE orders_2023_snapshot AS
SELECT id, customer_id, total_cents, placed_at
FROM orders
WHERE placed_at >= '2023-01-01' AND placed_at < '2024-01-01';
CREATE INDEX orders_2023_snapshot_customer_idx ON orders_2023_snapshot (customer_id);
