-- corpus: label=unsafe pg-version=16 runner=psql hazards=constraint-validation
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'orders_shipping_address_fk') THEN
        ALTER TABLE orders ADD CONSTRAINT orders_shipping_address_fk
            FOREIGN KEY (shipping_address_id) REFERENCES addresses (id);
    END IF;
END;
$$;
