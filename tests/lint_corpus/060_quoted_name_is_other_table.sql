-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
SET lock_timeout = '2s';
CREATE TABLE "Events" (id bigint PRIMARY KEY, payload jsonb);
-- events (lower case) is the old, large table, not the one created above
CREATE INDEX events_payload_idx ON events USING gin (payload);
