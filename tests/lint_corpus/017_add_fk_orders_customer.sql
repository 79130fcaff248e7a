-- corpus: label=unsafe pg-version=16 runner=psql hazards=constraint-validation
SET lock_timeout = '2s';
ALTER TABLE orders
    ADD CONSTRAINT orders_customer_id_fkey
    FOREIGN KEY (customer_id) REFERENCES customers (id);
