-- corpus: label=unsafe pg-version=16 runner=psql hazards=rewriting-default
CREATE SEQUENCE IF NOT EXISTS invoices_number_seq;
SET lock_timeout = '2s';
-- nextval() is volatile: every existing row gets its own value, so the table is rewritten.
ALTER TABLE invoices ADD COLUMN number bigint DEFAULT nextval('invoices_number_seq');
