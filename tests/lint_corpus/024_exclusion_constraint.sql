-- corpus: label=unsafe pg-version=16 runner=psql hazards=exclusion-constraint
CREATE EXTENSION IF NOT EXISTS btree_gist;
SET lock_timeout = '2s';
ALTER TABLE bookings
    ADD CONSTRAINT bookings_no_overlap
    EXCLUDE USING gist (room_id WITH =, tstzrange(starts_at, ends_at) WITH &&);
