-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
-- measurements is partitioned by month and already holds two years of data.
SET lock_timeout = '2s';
CREATE INDEX measurements_device_id_idx ON measurements (device_id, recorded_at);
