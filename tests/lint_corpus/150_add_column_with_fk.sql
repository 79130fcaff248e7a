-- corpus: label=safe pg-version=16 runner=psql hazards=constraint-validation
-- A new column with no default is NULL in every row, so PostgreSQL marks the FK
-- valid without scanning tickets.
SET lock_timeout = '2s';
ALTER TABLE tickets ADD COLUMN assignee_id bigint REFERENCES users (id);
