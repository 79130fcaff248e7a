-- corpus: label=unsafe pg-version=13 runner=psql hazards=version-syntax
SET lock_timeout = '2s';
ALTER TABLE documents ALTER COLUMN body SET COMPRESSION lz4;
