-- corpus: label=safe pg-version=14 runner=psql hazards=type-change
SET lock_timeout = '2s';
ALTER TABLE tags ALTER COLUMN label TYPE varchar;
