-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
-- Retention: drop everything older than 90 days.
DELETE FROM events WHERE created_at < now() - interval '90 days';
