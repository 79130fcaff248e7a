-- corpus: label=safe pg-version=16 runner=psql hazards=rename
SET lock_timeout = '2s';
ALTER TABLE orders RENAME CONSTRAINT orders_cust_fk TO orders_customer_id_fkey;
