-- corpus: label=unsafe pg-version=14 runner=psql hazards=concurrently-in-transaction
BEGIN;
--
-- Remove index shop_order_status_idx from model order
--
DROP INDEX CONCURRENTLY IF EXISTS "shop_order_status_idx";
COMMIT;
