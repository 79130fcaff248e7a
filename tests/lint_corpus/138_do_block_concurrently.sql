-- corpus: label=unsafe pg-version=15 runner=psql hazards=concurrently-in-transaction
-- A DO block always runs in a transaction: CONCURRENTLY fails here.
DO $$
BEGIN
    EXECUTE 'CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_status_idx ON orders (status)';
END
$$;
