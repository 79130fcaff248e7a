"""The copy behind `trace --dsn`: `--sample N` keeps every foreign key (self-references,
composite and partitioned keys, cycles), `--statistics` restores planner statistics on
PostgreSQL 18 only, and a pg_dump older than the server fails in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from agentddl.checks.db import DatabaseError, PostgresServer
from agentddl.checks.db.clone import CloneSource, clone_into
from agentddl.checks.db.dump import dump_schema, tools_in
from agentddl.checks.db.installations import candidate_bin_dirs
from agentddl.checks.trace import TraceRequest, run

FIXTURES = Path(__file__).parents[2] / "fixtures" / "trace"
SAMPLE = 200
USER_SCHEMA = """
CREATE TABLE tenants (id int PRIMARY KEY);
CREATE TABLE runs (
    tenant_id int NOT NULL REFERENCES tenants,
    id int NOT NULL,
    parent_id int,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, parent_id) REFERENCES runs (tenant_id, id)
);
CREATE TABLE notes (id int PRIMARY KEY, body text);
CREATE TABLE events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id int NOT NULL,
    run_id int NOT NULL,
    note_id int REFERENCES notes,
    doubled bigint GENERATED ALWAYS AS (id * 2) STORED,
    FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id)
);
CREATE TABLE chain (id int PRIMARY KEY, prev_id int NOT NULL REFERENCES chain (id));
CREATE TABLE measurements (tenant_id int NOT NULL, run_id int NOT NULL, taken date NOT NULL)
    PARTITION BY RANGE (taken);
CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
ALTER TABLE measurements ADD FOREIGN KEY (tenant_id, run_id) REFERENCES runs (tenant_id, id);
CREATE TABLE a (id int PRIMARY KEY, b_id int);
CREATE TABLE b (id int PRIMARY KEY, a_id int REFERENCES a);
ALTER TABLE a ADD FOREIGN KEY (b_id) REFERENCES b;

INSERT INTO tenants SELECT g FROM generate_series(1, 50) g;
INSERT INTO runs SELECT 1 + g % 50, g, CASE WHEN g > 50 THEN g - 50 END FROM generate_series(1, 5000) g;
INSERT INTO notes SELECT g, repeat('n', 200) FROM generate_series(1, 20000) g;
INSERT INTO events (tenant_id, run_id, note_id)
    SELECT 1 + g % 50, g, 1 + g * 7 % 20000 FROM generate_series(1, 5000) g;
INSERT INTO chain SELECT g, greatest(1, g - 1) FROM generate_series(1, 20000) g;
INSERT INTO measurements SELECT 1 + g % 50, g, date '2025-01-01' + g % 365 FROM generate_series(1, 5000) g;
INSERT INTO a SELECT g, NULL FROM generate_series(1, 300) g;
INSERT INTO b SELECT g, g FROM generate_series(1, 300) g;
UPDATE a SET b_id = id;
ANALYZE;
"""


@pytest.fixture
def user_database(pg_server_latest: PostgresServer) -> Iterator[str]:
    dsn = pg_server_latest.create_database()
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(USER_SCHEMA)
        yield dsn
    finally:
        pg_server_latest.drop_database(dsn)


def revalidate_every_foreign_key(dsn: str) -> int:
    """Drop and re-add every foreign key: re-adding checks every row (an error if one dangles)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        keys = conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE contype = 'f' AND conparentid = 0"
        ).fetchall()
        for table, name, definition in keys:
            conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
            conn.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    return len(keys)


def counts(dsn: str, *tables: str) -> dict[str, int]:
    with psycopg.connect(dsn) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}  # type: ignore[index]


def test_a_sample_keeps_every_foreign_key(pg_server_latest: PostgresServer, user_database: str) -> None:
    with pg_server_latest.scratch_database() as copy:
        clone_into(CloneSource(user_database, sample=SAMPLE), copy, pg_server_latest.version)
        assert revalidate_every_foreign_key(copy) == 8
        found = counts(copy, "tenants", "runs", "events", "notes", "chain", "measurements", "a", "b")
        assert all(0 < n <= SAMPLE for n in found.values()), found
        with psycopg.connect(copy) as conn:
            kept_parents = conn.execute("SELECT count(*) FROM runs WHERE parent_id IS NOT NULL").fetchone()
            top = conn.execute("SELECT max(id) FROM events").fetchone()
            next_id = conn.execute(
                "INSERT INTO events (tenant_id, run_id) SELECT tenant_id, id FROM runs LIMIT 1 RETURNING id"
            ).fetchone()
        assert kept_parents is not None and kept_parents[0] > 0  # a self-reference inside the sample stays
        assert next_id is not None and top is not None and next_id[0] > top[0]  # the sequence moved on


def test_statistics_restore_on_18_only(trace_server: PostgresServer) -> None:
    user = trace_server.create_database()
    try:
        with psycopg.connect(user, autocommit=True) as conn:
            conn.execute("CREATE TABLE t (id int); INSERT INTO t SELECT generate_series(1, 5000); ANALYZE t")
        if trace_server.version < 18:
            request = TraceRequest([FIXTURES / "07_add_column_now.sql"], dsn=user, statistics=True)
            with pytest.raises(DatabaseError, match=r"^--statistics .* PostgreSQL 18: the scratch server is"):
                run(request)
            return
        with trace_server.scratch_database() as copy:
            clone_into(CloneSource(user, statistics=True), copy, trace_server.version)
            with psycopg.connect(copy) as conn:
                stats = "SELECT reltuples, (SELECT count(*) FROM t) FROM pg_class WHERE relname = 't'"
                # the planner sees 5,000 rows; none were copied
                assert conn.execute(stats).fetchone() == (5000, 0)
    finally:
        trace_server.drop_database(user)


def test_a_pg_dump_older_than_the_server_fails_in_one_line(pg_server_latest: PostgresServer) -> None:
    older = [t for t in map(tools_in, candidate_bin_dirs()) if t and t.major < pg_server_latest.version]
    assert older, "tests/setup/install_postgres.sh installs Debian's PostgreSQL 15 (pg_dump 15)"
    with pytest.raises(DatabaseError) as raised:
        dump_schema(pg_server_latest.admin_dsn, tools=older[0])
    message = str(raised.value)
    assert "\n" not in message and "server version mismatch" in message, message
    assert "pg_dump must be at least as new as the server" in message
