-- corpus: label=safe pg-version=14 runner=psql hazards=backfill
UPDATE users
SET email_normalized = lower(email)
WHERE id IN (
    SELECT id FROM users WHERE email_normalized IS NULL ORDER BY id LIMIT 1000
);
