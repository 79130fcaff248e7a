-- corpus: label=safe pg-version=13 runner=psql hazards=unique-inline
-- audit_log.id is already NOT NULL (done in 0087).
CREATE UNIQUE INDEX CONCURRENTLY audit_log_pkey ON audit_log (id);
SET lock_timeout = '2s';
ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY USING INDEX audit_log_pkey;
