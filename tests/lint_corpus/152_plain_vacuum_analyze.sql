-- corpus: label=safe pg-version=16 runner=psql hazards=table-rewrite
-- After the bulk delete: plain VACUUM takes SHARE UPDATE EXCLUSIVE, reads and writes continue.
VACUUM (ANALYZE, VERBOSE) events;
