-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
BEGIN;
--
-- Add field external_ref to order
--
ALTER TABLE "shop_order" ADD COLUMN "external_ref" varchar(64) NULL;
CREATE INDEX "shop_order_external_ref_8d1f2c3a" ON "shop_order" ("external_ref");
COMMIT;
