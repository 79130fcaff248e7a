-- corpus: label=unsafe pg-version=16 runner=psql hazards=backfill
-- The old session store is replaced by Redis.
DELETE FROM web_sessions;
