-- corpus: label=safe pg-version=16 runner=psql hazards=constraint-validation
ALTER DOMAIN email_address ADD CONSTRAINT email_address_has_at CHECK (VALUE LIKE '%@%') NOT VALID;
