-- corpus: label=unsafe pg-version=16 runner=psql hazards=type-change
-- events.id is at 1.9 billion.
SET lock_timeout = '2s';
ALTER TABLE events ALTER COLUMN id TYPE bigint;
