-- corpus: label=safe pg-version=16 runner=psql hazards=type-change
SET lock_timeout = '2s';
ALTER TABLE customers ALTER COLUMN company_name TYPE varchar(500);
