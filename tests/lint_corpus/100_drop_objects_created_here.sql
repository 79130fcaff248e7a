-- corpus: label=safe pg-version=15 runner=psql hazards=drop
-- Stage the import in a scratch table, then throw the scratch table away.
CREATE TABLE import_scratch (sku text PRIMARY KEY, name text NOT NULL);
INSERT INTO import_scratch (sku, name) VALUES ('A-1', 'Widget'), ('A-2', 'Gadget');
CREATE TABLE product_aliases (sku text PRIMARY KEY, alias text NOT NULL);
INSERT INTO product_aliases (sku, alias) SELECT sku, lower(name) FROM import_scratch;
DROP TABLE import_scratch;
