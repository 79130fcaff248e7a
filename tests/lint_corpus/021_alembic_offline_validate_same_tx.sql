-- corpus: label=unsafe pg-version=14 runner=alembic hazards=validate-same-transaction
BEGIN;

-- Running upgrade 5d2c9a8e7f01 -> 77aa01bc22dd

SET LOCAL lock_timeout = '3s';

ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_period_check CHECK (ends_at > starts_at) NOT VALID;

ALTER TABLE subscriptions VALIDATE CONSTRAINT subscriptions_period_check;

UPDATE alembic_version SET version_num='77aa01bc22dd' WHERE alembic_version.version_num = '5d2c9a8e7f01';

COMMIT;
