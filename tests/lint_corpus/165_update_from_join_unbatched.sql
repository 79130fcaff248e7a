-- corpus: label=unsafe pg-version=15 runner=psql hazards=backfill
-- Denormalise the customer's region onto every order.
UPDATE orders AS o
SET region = c.region
FROM customers AS c
WHERE c.id = o.customer_id AND o.region IS NULL;
