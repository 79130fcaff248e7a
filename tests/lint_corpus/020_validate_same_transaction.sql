-- corpus: label=unsafe pg-version=16 runner=psql hazards=validate-same-transaction
BEGIN;
SET LOCAL lock_timeout = '2s';
ALTER TABLE payments ADD CONSTRAINT payments_invoice_id_fkey
    FOREIGN KEY (invoice_id) REFERENCES invoices (id) NOT VALID;
ALTER TABLE payments VALIDATE CONSTRAINT payments_invoice_id_fkey;
COMMIT;
