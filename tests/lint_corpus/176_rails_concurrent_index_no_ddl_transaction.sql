-- corpus: label=safe pg-version=16 runner=psql hazards=index-build,concurrently-in-transaction
-- disable_ddl_transaction!; add_index :orders, :store_id, algorithm: :concurrently
CREATE INDEX CONCURRENTLY "index_orders_on_store_id" ON "orders" ("store_id");
INSERT INTO "schema_migrations" ("version") VALUES ('20240612101600');
