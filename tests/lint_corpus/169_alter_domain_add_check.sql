-- corpus: label=unsafe pg-version=16 runner=psql hazards=constraint-validation
-- Every column of type email_address (users, invoices, contacts) is checked under a lock.
ALTER DOMAIN email_address ADD CONSTRAINT email_address_has_at CHECK (VALUE LIKE '%@%');
