-- corpus: label=safe pg-version=15 runner=psql hazards=index-build,concurrently-in-transaction
--
-- Raw SQL operation (migration has atomic = False)
--
CREATE INDEX CONCURRENTLY "shop_order_status_idx" ON "shop_order" ("status");
