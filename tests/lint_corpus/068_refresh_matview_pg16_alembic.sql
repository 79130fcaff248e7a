-- corpus: label=unsafe pg-version=16 runner=alembic hazards=non-concurrent-maintenance
BEGIN;

-- Running upgrade 8a8b8c8d8e8f -> 2c2d2e2f3a3b

CREATE OR REPLACE VIEW active_customers AS SELECT id, name FROM customers WHERE deleted_at IS NULL;

REFRESH MATERIALIZED VIEW customer_lifetime_value;

UPDATE alembic_version SET version_num='2c2d2e2f3a3b' WHERE alembic_version.version_num = '8a8b8c8d8e8f';

COMMIT;
