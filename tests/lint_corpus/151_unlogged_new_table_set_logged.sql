-- corpus: label=safe pg-version=16 runner=psql hazards=table-rewrite
-- Bulk-load fast, then make it crash-safe before anyone reads it.
CREATE UNLOGGED TABLE geo_regions (
    id integer PRIMARY KEY,
    name text NOT NULL,
    parent_id integer
);
INSERT INTO geo_regions (id, name, parent_id) VALUES (1, 'Europe', NULL), (2, 'France', 1);
ALTER TABLE geo_regions SET LOGGED;
