-- corpus: label=unsafe pg-version=16 runner=psql hazards=table-rewrite
-- Reclaim the space freed by last week's purge.
VACUUM FULL ANALYZE events;
