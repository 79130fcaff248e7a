-- corpus: label=unsafe pg-version=13 runner=psql hazards=version-syntax
ALTER TABLE events DETACH PARTITION events_2022 CONCURRENTLY;
