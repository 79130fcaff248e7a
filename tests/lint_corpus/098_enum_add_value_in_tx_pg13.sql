-- corpus: label=safe pg-version=13 runner=alembic hazards=enum-add-value
BEGIN;

-- Running upgrade 4d4e4f5a5b5c -> 6e6f7a7b7c7d

ALTER TYPE payment_state ADD VALUE 'chargeback';

UPDATE alembic_version SET version_num='6e6f7a7b7c7d' WHERE alembic_version.version_num = '4d4e4f5a5b5c';

COMMIT;
