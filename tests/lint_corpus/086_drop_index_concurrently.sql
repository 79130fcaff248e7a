-- corpus: label=safe pg-version=14 runner=psql hazards=index-drop
DROP INDEX CONCURRENTLY IF EXISTS events_account_id_idx;
