-- corpus: label=safe pg-version=16 runner=psql hazards=index-build,index-drop
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_account_created_idx ON events (account_id, created_at DESC);
DROP INDEX CONCURRENTLY IF EXISTS events_account_id_idx;
