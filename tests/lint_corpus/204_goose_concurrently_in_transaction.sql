-- corpus: label=unsafe pg-version=16 runner=psql hazards=concurrently-in-transaction
-- goose runs this file in a transaction (no "+goose NO TRANSACTION"): CONCURRENTLY fails.
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_status_idx ON orders (status);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS orders_status_idx;
