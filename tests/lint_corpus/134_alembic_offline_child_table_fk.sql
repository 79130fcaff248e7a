-- corpus: label=safe pg-version=16 runner=alembic hazards=constraint-validation,lock-timeout
BEGIN;

-- Running upgrade 9f9e9d9c9b9a -> 1a2b3c4d5e6f

CREATE TABLE order_notes (
    id BIGSERIAL NOT NULL,
    order_id BIGINT NOT NULL,
    body TEXT NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE DEFAULT now() NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY(order_id) REFERENCES orders (id) ON DELETE CASCADE
);

CREATE INDEX ix_order_notes_order_id ON order_notes (order_id);

UPDATE alembic_version SET version_num='1a2b3c4d5e6f' WHERE alembic_version.version_num = '9f9e9d9c9b9a';

COMMIT;
