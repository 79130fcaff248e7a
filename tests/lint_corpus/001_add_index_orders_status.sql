-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
-- Speed up the admin "orders by status" screen.
SET lock_timeout = '5s';
CREATE INDEX index_orders_on_status ON orders (status);
