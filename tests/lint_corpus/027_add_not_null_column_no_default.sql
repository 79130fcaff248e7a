-- corpus: label=unsafe pg-version=16 runner=psql hazards=add-not-null-column
SET lock_timeout = '2s';
ALTER TABLE invoices ADD COLUMN currency char(3) NOT NULL;
