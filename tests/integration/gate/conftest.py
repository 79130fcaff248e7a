"""A database agentddl did not generate: a small shop (customers, orders with a foreign
key, a few thousand rows, statistics), the migrations a pull request could bring, and a
project folder with the linter's config."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.dump import dump_schema

SHOP = """
CREATE TABLE public.customers (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.orders (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES public.customers (id),
    qty integer NOT NULL,
    placed_at timestamptz NOT NULL
);
CREATE INDEX orders_customer_idx ON public.orders (customer_id);
CREATE TABLE public.refunds (  -- a foreign key no index leads with, there before any change
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id bigint NOT NULL REFERENCES public.orders (id)
);
INSERT INTO public.customers (email) SELECT 'c' || g || '@example.com' FROM generate_series(1, 2000) AS g;
INSERT INTO public.orders (customer_id, qty, placed_at)
SELECT 1 + g % 2000, 1 + g % 7, timestamptz '2026-01-01' + g * interval '1 minute'
FROM generate_series(1, 20000) AS g;
ANALYZE public.customers, public.orders, public.refunds;
"""
QUERIES = """-- name: orders_of_customer(customer_id)
SELECT id, qty, placed_at FROM public.orders WHERE customer_id = :customer_id;
"""
# The team's thresholds: a table of a few thousand rows is already "large" for them.
CONFIG = "table_size = { info_below_rows = 100, warning_below_rows = 1000 }\n"
UNSAFE = """CREATE INDEX orders_placed_idx ON public.orders (placed_at);
ALTER TABLE public.orders ALTER COLUMN qty TYPE bigint;
"""
SAFE = """SET lock_timeout = '2s';
CREATE INDEX CONCURRENTLY orders_placed_idx ON public.orders (placed_at);
"""
# Rows written in the database (its catalogs included), as its sessions report them when
# they end; and the sessions still connected besides this one.
WRITES = """
SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()
"""
OTHERS = """
SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
"""


@pytest.fixture(scope="module")
def shop_dsn(pg_server_latest: PostgresServer) -> Iterator[str]:
    with pg_server_latest.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(SHOP)
        yield dsn


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the working directory): agentddl.toml, queries.sql, migrations/."""
    (tmp_path / "agentddl.toml").write_text(CONFIG)
    (tmp_path / "queries.sql").write_text(QUERIES)
    (tmp_path / "migrations").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
    return tmp_path


def database_state(dsn: str) -> tuple[str, int]:
    """The schema as pg_dump prints it, and the rows ever written in the database, read
    once every other session has ended (a session's counts are flushed when it ends)."""
    # pg_dump 17.6+ fences its output with a random \restrict key: not the schema
    fences = ("\\restrict ", "\\unrestrict ")
    schema = "\n".join(line for line in dump_schema(dsn).splitlines() if not line.startswith(fences))
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in range(200):  # a hang guard: the gate's sessions end as it exits
            if conn.execute(OTHERS).fetchone() == (0,):
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"sessions on {dsn} still open 10 s after the run: its write count would be partial")
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(WRITES).fetchone()
    assert row is not None
    return schema, int(row[0])
