-- corpus: label=unsafe pg-version=15 runner=psql hazards=non-concurrent-maintenance
-- Retention: move 2023 out of the hot table, archive it later.
SET lock_timeout = '2s';
ALTER TABLE events DETACH PARTITION events_2023;
