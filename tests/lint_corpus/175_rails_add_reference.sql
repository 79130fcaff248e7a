-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build,constraint-validation
-- add_reference :orders, :store, index: true, foreign_key: true
BEGIN;
ALTER TABLE "orders" ADD "store_id" bigint;
CREATE INDEX "index_orders_on_store_id" ON "orders" ("store_id");
ALTER TABLE "orders" ADD CONSTRAINT "fk_rails_3dad120da9"
FOREIGN KEY ("store_id")
  REFERENCES "stores" ("id")
;
INSERT INTO "schema_migrations" ("version") VALUES ('20240612101500');
COMMIT;
