-- corpus: label=safe pg-version=16 runner=psql hazards=index-build
-- Index a partitioned table without blocking writes: an invalid index on the
-- parent only, each partition built concurrently, then attached.
SET lock_timeout = '2s';
CREATE INDEX IF NOT EXISTS measurements_device_id_idx ON ONLY measurements (device_id, recorded_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS measurements_2024_01_device_id_idx ON measurements_2024_01 (device_id, recorded_at);
CREATE INDEX CONCURRENTLY IF NOT EXISTS measurements_2024_02_device_id_idx ON measurements_2024_02 (device_id, recorded_at);
ALTER INDEX measurements_device_id_idx ATTACH PARTITION measurements_2024_01_device_id_idx;
ALTER INDEX measurements_device_id_idx ATTACH PARTITION measurements_2024_02_device_id_idx;
