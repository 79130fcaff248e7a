"""db.catalog_clone: a schema rebuilt from its catalog in a scratch database, with a
sample of rows: enums, domains, partitions, keys, checks, partial and expression
indexes; foreign keys left out; the source only read."""

from __future__ import annotations

from typing import Any

from agentddl.checks.db import PostgresServer, connect
from agentddl.checks.db.catalog_clone import clone_schema

SOURCE = """
CREATE SCHEMA shop;
CREATE TYPE shop.state AS ENUM ('open', 'paid', 'void');
CREATE DOMAIN shop.money AS numeric(12, 2);
CREATE TABLE shop.customers (id bigint PRIMARY KEY, email text NOT NULL UNIQUE);
CREATE TABLE shop.orders (
    id bigint NOT NULL,
    customer_id bigint NOT NULL REFERENCES shop.customers (id),
    state shop.state NOT NULL,
    total shop.money NOT NULL CHECK (total >= 0),
    placed_at timestamptz NOT NULL,
    PRIMARY KEY (id, placed_at)
) PARTITION BY RANGE (placed_at);
CREATE TABLE shop.orders_old PARTITION OF shop.orders FOR VALUES FROM (MINVALUE) TO ('2026-01-01');
CREATE TABLE shop.orders_new PARTITION OF shop.orders FOR VALUES FROM ('2026-01-01') TO (MAXVALUE);
CREATE INDEX orders_open_idx ON shop.orders (customer_id) WHERE state = 'open';
CREATE INDEX customers_email_lower_idx ON shop.customers (lower(email));
INSERT INTO shop.customers SELECT g, 'c' || g || '@example.com' FROM generate_series(1, 3000) AS g;
INSERT INTO shop.orders
SELECT g, 1 + g % 3000, (ARRAY['open', 'paid', 'void'])[1 + g % 3]::shop.state, g % 500,
    timestamptz '2025-06-01' + g * interval '1 minute'
FROM generate_series(1, 20000) AS g;
ANALYZE;
"""
INDEXES = (
    "SELECT indexrelid::regclass::text FROM pg_index JOIN pg_class AS c ON c.oid = indexrelid ORDER BY 1"
)


def test_a_schema_is_rebuilt_from_its_catalog_with_a_sample(pg_server: PostgresServer) -> None:
    with pg_server.scratch_database() as source_dsn, pg_server.scratch_database() as target_dsn:
        with connect(source_dsn) as conn:
            conn.execute(SOURCE.encode())
        with connect(source_dsn, read_only=True) as source, connect(target_dsn) as target:
            report = clone_schema(source, target, "shop", rows=5000)
            assert report.skipped == [], report.skipped
            counts: Any = target.execute(
                "SELECT (SELECT count(*) FROM shop.customers), (SELECT count(*) FROM shop.orders),"
                " (SELECT count(*) FROM shop.orders_old) + (SELECT count(*) FROM shop.orders_new)"
            ).fetchone()
            names = {r[0] for r in target.execute(INDEXES).fetchall() if r[0].startswith("shop.")}
            fks = target.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'").fetchone()
            checks = target.execute(
                "SELECT count(*) FROM pg_constraint WHERE conname = 'orders_total_check'"
                " AND conrelid = 'shop.orders'::regclass"
            ).fetchone()
        # customers (3,000) is copied whole; orders' partitions are sampled
        assert counts[0] == 3000 and counts[1] == counts[2] and 0 < counts[1] < 20000
        assert {
            "shop.customers_pkey",
            "shop.customers_email_key",
            "shop.customers_email_lower_idx",
            "shop.orders_open_idx",
            "shop.orders_pkey",
        } <= names
        assert fks == (0,) and checks == (1,)  # no foreign keys (a sample is not closed under them)
        with connect(source_dsn) as conn:
            assert conn.execute("SELECT count(*) FROM shop.orders").fetchone() == (20000,)
