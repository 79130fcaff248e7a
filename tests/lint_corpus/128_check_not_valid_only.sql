-- corpus: label=safe pg-version=16 runner=psql hazards=constraint-validation
SET lock_timeout = '2s';
ALTER TABLE payments ADD CONSTRAINT payments_amount_positive CHECK (amount_cents > 0) NOT VALID;
