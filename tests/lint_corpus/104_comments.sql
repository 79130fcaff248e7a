-- corpus: label=safe pg-version=16 runner=psql hazards=none
COMMENT ON TABLE orders IS 'One row per checkout; immutable after fulfilment.';
COMMENT ON COLUMN orders.total_cents IS 'Sum of line items in minor units, tax included.';
COMMENT ON INDEX orders_customer_id_idx IS 'Serves the customer order history page.';
