-- corpus: label=safe pg-version=14 runner=psql hazards=table-rewrite,version-syntax
-- Only newly written values use lz4; existing rows are not rewritten.
SET lock_timeout = '2s';
ALTER TABLE documents ALTER COLUMN body SET COMPRESSION lz4;
