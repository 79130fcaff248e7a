-- corpus: label=safe pg-version=16 runner=psql hazards=table-rewrite
-- Tune autovacuum for the hot queue table; no rewrite, SHARE UPDATE EXCLUSIVE only.
ALTER TABLE job_queue SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE job_queue ALTER COLUMN payload SET STATISTICS 500;
ANALYZE job_queue;
