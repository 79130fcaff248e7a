-- corpus: label=safe pg-version=16 runner=psql hazards=backfill
-- One batch of the retention job; cron repeats it until it deletes nothing.
WITH doomed AS (
    SELECT id FROM events
    WHERE created_at < now() - interval '90 days'
    ORDER BY id
    LIMIT 5000
)
DELETE FROM events WHERE id IN (SELECT id FROM doomed);
