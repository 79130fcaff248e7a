-- corpus: label=safe pg-version=16 runner=psql hazards=index-build,lock-timeout
\set ON_ERROR_STOP on
\echo 'adding shipments.delivered_at'
SET lock_timeout = '2s';
ALTER TABLE shipments ADD COLUMN delivered_at timestamptz;
\echo 'indexing it without blocking writes'
CREATE INDEX CONCURRENTLY IF NOT EXISTS shipments_delivered_at_idx ON shipments (delivered_at);
