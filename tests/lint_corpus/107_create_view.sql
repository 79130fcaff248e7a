-- corpus: label=safe pg-version=15 runner=psql hazards=none
CREATE OR REPLACE VIEW open_invoices AS
SELECT i.id, i.customer_id, i.due_date, i.total_cents
FROM invoices AS i
WHERE i.paid_at IS NULL AND i.voided_at IS NULL;
