-- corpus: label=unsafe pg-version=13 runner=psql hazards=unique-inline
-- audit_log was created without a primary key years ago.
SET lock_timeout = '2s';
ALTER TABLE audit_log ADD PRIMARY KEY (id);
