-- corpus: label=unsafe pg-version=16 runner=psql hazards=type-change
-- Rails: change_column :products, :price, :decimal, precision: 10, scale: 2 (price was a float)
ALTER TABLE "products" ALTER COLUMN "price" TYPE numeric(10,2);
