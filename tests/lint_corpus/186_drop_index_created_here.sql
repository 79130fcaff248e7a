-- corpus: label=safe pg-version=16 runner=psql hazards=index-drop
CREATE TABLE import_batches (id bigint PRIMARY KEY, source text NOT NULL, loaded_at timestamptz);
CREATE INDEX import_batches_source_idx ON import_batches (source);
-- changed our mind within the same migration: a composite index serves both queries
DROP INDEX import_batches_source_idx;
CREATE INDEX import_batches_source_loaded_idx ON import_batches (source, loaded_at);
