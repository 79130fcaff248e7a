-- corpus: label=unsafe pg-version=15 runner=psql hazards=rename
-- migrate:up
ALTER TABLE users RENAME COLUMN avatar_url TO picture_url;

-- migrate:down
ALTER TABLE users RENAME COLUMN picture_url TO avatar_url;
