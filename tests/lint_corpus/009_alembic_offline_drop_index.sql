-- corpus: label=unsafe pg-version=15 runner=alembic hazards=index-drop
BEGIN;

-- Running upgrade 9c4d2e11aa02 -> 1b7e0f5d3c44

DROP INDEX ix_invoices_legacy_number;

UPDATE alembic_version SET version_num='1b7e0f5d3c44' WHERE alembic_version.version_num = '9c4d2e11aa02';

COMMIT;
