-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
-- Enforce case-insensitive unique emails.
SET lock_timeout TO '3s';
CREATE UNIQUE INDEX users_lower_email_key ON users (lower(email));
