-- corpus: label=unsafe pg-version=16 runner=alembic hazards=add-not-null-column
BEGIN;

-- Running upgrade 1a2b3c4d5e6f -> 3c3c3c3c3c3c

ALTER TABLE subscriptions ADD COLUMN billing_interval VARCHAR(16) NOT NULL;

UPDATE alembic_version SET version_num='3c3c3c3c3c3c' WHERE alembic_version.version_num = '1a2b3c4d5e6f';

COMMIT;
