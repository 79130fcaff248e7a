-- corpus: label=safe pg-version=14 runner=psql hazards=validate-same-transaction
-- Second half of 0041: the constraint was added NOT VALID in the previous release.
ALTER TABLE subscriptions VALIDATE CONSTRAINT subscriptions_period_check;
