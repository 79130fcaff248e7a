-- corpus: label=safe pg-version=16 runner=psql hazards=add-not-null-column,lock-timeout
BEGIN;
--
-- Add field archived_at to order
--
ALTER TABLE "shop_order" ADD COLUMN "archived_at" timestamp with time zone NULL;
COMMIT;
