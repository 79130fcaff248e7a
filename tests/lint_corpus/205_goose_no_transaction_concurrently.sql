-- corpus: label=safe pg-version=16 runner=psql hazards=concurrently-in-transaction,index-build
-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_status_idx ON orders (status);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS orders_status_idx;
