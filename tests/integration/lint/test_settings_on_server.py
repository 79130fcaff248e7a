"""The walker's lock_timeout / statement_timeout / search_path agree with a real server
running the same script statement by statement, as psql does (autocommit outside
BEGIN ... COMMIT)."""

from __future__ import annotations

import psycopg

from agentddl.checks.db import PostgresServer
from agentddl.checks.pg.settings import duration_ms, search_path_list
from agentddl.checks.pg.walk import walk

SCRIPT = """
SET lock_timeout = '2s';
SELECT 1;
SET LOCAL lock_timeout = '5s';
BEGIN;
SET LOCAL lock_timeout = '1min';
SELECT 2;
SET statement_timeout = 3000;
COMMIT;
SELECT set_config('lock_timeout', '750ms', false);
BEGIN;
SELECT set_config('lock_timeout', '9s', true);
SET lock_timeout = '4s';
ROLLBACK;
SET search_path TO agent, public;
RESET lock_timeout;
SET SESSION statement_timeout TO DEFAULT;
BEGIN;
SET lock_timeout = '6s';
SET LOCAL lock_timeout = '7s';
COMMIT;
DO $$ BEGIN PERFORM set_config('lock_timeout', '8s', true); END $$;
DO $$ BEGIN SET lock_timeout = '11s'; END $$;
RESET ALL;
"""


def test_settings_follow_the_server(pg_server: PostgresServer) -> None:
    steps = [(s, c) for s, c in walk(SCRIPT, "s.sql", 16, "psql").steps if not s.in_do_block]
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA agent")
        checked = set()
        for statement, context in steps:
            seen = _server_settings(conn)
            walked = (context.lock_timeout_ms, context.statement_timeout_ms, context.search_path)
            assert walked == seen, f"before line {statement.line}: {statement.sql}"
            checked.add(walked)
            conn.execute(statement.sql)
        assert len(steps) == 23 and len(checked) >= 8  # the script really moves the settings


def _server_settings(conn: psycopg.Connection[tuple[object, ...]]) -> tuple[int, int, tuple[str, ...]]:
    def show(name: str) -> str:
        row = conn.execute(f"SHOW {name}").fetchone()
        assert row is not None
        return str(row[0])

    path = tuple(s for s in search_path_list(show("search_path")) if s != "$user")
    return duration_ms(show("lock_timeout")) or 0, duration_ms(show("statement_timeout")) or 0, path
