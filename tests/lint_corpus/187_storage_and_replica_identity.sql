-- corpus: label=safe pg-version=16 runner=psql hazards=table-rewrite,lock-timeout
-- Metadata-only changes: no rewrite, no scan.
ALTER TABLE attachments ALTER COLUMN content SET STORAGE EXTERNAL;
ALTER TABLE attachments REPLICA IDENTITY FULL;
ALTER TABLE attachments OWNER TO app_owner;
