-- corpus: label=safe pg-version=15 runner=alembic hazards=index-build,concurrently-in-transaction
BEGIN;

-- Running upgrade 2c2d2e2f3a3b -> 4d4e4f5a5b5c

COMMIT;

CREATE INDEX CONCURRENTLY ix_shipments_tracking_number ON shipments (tracking_number);

BEGIN;

UPDATE alembic_version SET version_num='4d4e4f5a5b5c' WHERE alembic_version.version_num = '2c2d2e2f3a3b';

COMMIT;
