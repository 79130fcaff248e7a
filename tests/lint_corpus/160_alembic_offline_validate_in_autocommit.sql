-- corpus: label=safe pg-version=16 runner=alembic hazards=constraint-validation,validate-same-transaction
BEGIN;

-- Running upgrade 5e5e5e5e5e5e -> 7f7f7f7f7f7f

SET LOCAL lock_timeout = '2s';

ALTER TABLE payments ADD CONSTRAINT fk_payments_refund_id FOREIGN KEY(refund_id) REFERENCES refunds (id) NOT VALID;

COMMIT;

ALTER TABLE payments VALIDATE CONSTRAINT fk_payments_refund_id;

BEGIN;

UPDATE alembic_version SET version_num='7f7f7f7f7f7f' WHERE alembic_version.version_num = '5e5e5e5e5e5e';

COMMIT;
