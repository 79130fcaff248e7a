-- corpus: label=unsafe pg-version=15 runner=psql hazards=index-build
BEGIN;
--
-- Create index shop_order_created_idx on field(s) created_at of model order
--
CREATE INDEX "shop_order_created_idx" ON "shop_order" ("created_at");
COMMIT;
