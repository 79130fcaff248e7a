-- corpus: label=unsafe pg-version=16 runner=psql hazards=index-build
\set ON_ERROR_STOP on
\timing on
BEGIN;
SET LOCAL lock_timeout = '2s';
CREATE INDEX shipments_carrier_status_idx ON shipments (carrier_id, status);
COMMIT;
