-- corpus: label=unsafe pg-version=11 runner=alembic hazards=enum-add-value
BEGIN;

-- Running upgrade 7f7f7f7f7f7f -> 8a8a8a8a8a8a

ALTER TYPE shipment_state ADD VALUE 'returned';

UPDATE alembic_version SET version_num='8a8a8a8a8a8a' WHERE alembic_version.version_num = '7f7f7f7f7f7f';

COMMIT;
