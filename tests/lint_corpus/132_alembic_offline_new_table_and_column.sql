-- corpus: label=safe pg-version=15 runner=alembic hazards=index-build,lock-timeout
BEGIN;

-- Running upgrade 6e6f7a7b7c7d -> 9f9e9d9c9b9a

CREATE TABLE refund_reasons (
    id SERIAL NOT NULL,
    code VARCHAR(32) NOT NULL,
    description TEXT,
    PRIMARY KEY (id),
    UNIQUE (code)
);

CREATE INDEX ix_refund_reasons_description ON refund_reasons (description);

ALTER TABLE refunds ADD COLUMN reason_code VARCHAR(32);

UPDATE alembic_version SET version_num='9f9e9d9c9b9a' WHERE alembic_version.version_num = '6e6f7a7b7c7d';

COMMIT;
