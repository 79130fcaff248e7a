-- corpus: label=unsafe pg-version=16 runner=alembic hazards=drop
BEGIN;

-- Running upgrade 77aa01bc22dd -> 0e3f4a5b6c7d

ALTER TABLE invoices DROP COLUMN status_legacy;

DROP TYPE invoice_status_legacy;

UPDATE alembic_version SET version_num='0e3f4a5b6c7d' WHERE alembic_version.version_num = '77aa01bc22dd';

COMMIT;
