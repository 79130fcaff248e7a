-- corpus: label=unsafe pg-version=15 runner=psql hazards=table-rewrite
SET lock_timeout = '2s';
ALTER TABLE attachments SET TABLESPACE cold_storage;
