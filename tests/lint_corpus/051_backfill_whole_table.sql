-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
-- Normalise emails (30M rows).
UPDATE users SET email = lower(email);
