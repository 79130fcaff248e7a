-- corpus: label=safe pg-version=16 runner=psql hazards=lock-timeout
SET lock_timeout = '3s';
SET statement_timeout = '15s';
ALTER TABLE users ADD COLUMN timezone text;
ALTER TABLE users ADD COLUMN locale text;
