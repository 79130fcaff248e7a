-- corpus: label=unsafe pg-version=15 runner=alembic hazards=concurrently-in-transaction
BEGIN;

-- Running upgrade 1b7e0f5d3c44 -> 5d2c9a8e7f01

CREATE INDEX CONCURRENTLY ix_shipments_tracking_number ON shipments (tracking_number);

UPDATE alembic_version SET version_num='5d2c9a8e7f01' WHERE alembic_version.version_num = '1b7e0f5d3c44';

COMMIT;
