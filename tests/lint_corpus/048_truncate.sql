-- corpus: label=unsafe pg-version=16 runner=psql hazards=truncate
-- Start the sync over from scratch.
TRUNCATE TABLE sync_cursors;
