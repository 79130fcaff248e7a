-- corpus: label=unsafe pg-version=14 runner=alembic hazards=index-build
BEGIN;

-- Running upgrade 3f2a1b7c9d10 -> 9c4d2e11aa02

CREATE INDEX ix_invoices_customer_id ON invoices (customer_id);

UPDATE alembic_version SET version_num='9c4d2e11aa02' WHERE alembic_version.version_num = '3f2a1b7c9d10';

COMMIT;
