-- corpus: label=unsafe pg-version=15 runner=psql hazards=index-build
SET lock_timeout = '2s';
CREATE SCHEMA IF NOT EXISTS staging;
CREATE TABLE staging.events (LIKE public.events INCLUDING ALL);
CREATE INDEX events_kind_idx ON public.events (kind);
