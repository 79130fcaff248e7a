-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-drop
-- The composite index (account_id, created_at) covers this one.
SET lock_timeout = '2s';
DROP INDEX IF EXISTS events_account_id_idx;
