-- corpus: label=safe pg-version=16 runner=psql hazards=constraint-validation,validate-same-transaction
SET lock_timeout = '2s';
ALTER TABLE orders ADD CONSTRAINT orders_customer_id_fkey
    FOREIGN KEY (customer_id) REFERENCES customers (id) NOT VALID;
-- Autocommitted above; the scan below only takes SHARE UPDATE EXCLUSIVE on orders.
ALTER TABLE orders VALIDATE CONSTRAINT orders_customer_id_fkey;
