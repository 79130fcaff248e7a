-- corpus: label=safe pg-version=14 runner=psql hazards=none
-- Leave room after the data import.
SELECT setval('orders_id_seq', (SELECT max(id) FROM orders) + 1000);
ALTER SEQUENCE invoice_number_seq INCREMENT BY 1 CACHE 20;
