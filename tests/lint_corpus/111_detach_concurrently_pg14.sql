-- corpus: label=safe pg-version=14 runner=psql hazards=non-concurrent-maintenance,version-syntax
ALTER TABLE events DETACH PARTITION events_2022 CONCURRENTLY;
