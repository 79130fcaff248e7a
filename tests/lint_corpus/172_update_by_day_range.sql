-- corpus: label=safe pg-version=16 runner=psql hazards=backfill
-- One day per run; the backfill script loops over days.
UPDATE page_views
SET country = 'unknown'
WHERE viewed_at >= '2024-01-01' AND viewed_at < '2024-01-02' AND country IS NULL;
