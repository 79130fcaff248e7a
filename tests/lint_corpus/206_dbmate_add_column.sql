-- corpus: label=safe pg-version=15 runner=psql hazards=drop,lock-timeout
-- migrate:up
ALTER TABLE users ADD COLUMN avatar_url text;

-- migrate:down
ALTER TABLE users DROP COLUMN avatar_url;
