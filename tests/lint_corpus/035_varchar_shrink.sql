-- corpus: label=unsafe pg-version=16 runner=psql hazards=type-change
SET lock_timeout = '2s';
ALTER TABLE customers ALTER COLUMN country_code TYPE varchar(2);
