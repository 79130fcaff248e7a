"""`trace --dsn` (`--clone`): the scratch database copies a database of the user's.

The "user database" holds tests/fixtures/trace/schema.sql with its rows, made the way a
user's would be (no agentddl involved). Tracing every fixture migration on a copy of it
(`--dsn`, every row sampled) gives the same lock, rewrite, scan, error and finding
verdicts as today's hand-made setup (`--schema-sql schema.sql`), and the user database
is left exactly as it was."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from test_trace_fixtures import FIXTURES, SCHEMA, assert_expectations, codes_at, fixture_files, parse
from trace_blockers import holding

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.clone import CloneSource, clone_into
from agentddl.checks.db.server import with_dbname
from agentddl.checks.trace import TraceResult
from agentddl.checks.trace.observed import blocks_writes
from agentddl.checks.trace.scratch import _install
from agentddl.checks.trace.source import load_migrations
from agentddl.checks.trace.tracing import TraceOptions, trace_on
from agentddl.checks.trace.types import StatementTrace

_CONCURRENTLY = re.compile(r"\bCONCURRENTLY\b", re.IGNORECASE)
ALL_ROWS = 20_000  # the fixture schema's biggest table (orders): every row is copied
Verdict = tuple[object, ...]


@contextlib.contextmanager
def user_database(server: PostgresServer) -> Iterator[str]:
    """A database holding the fixture schema and its rows, as a user's would."""
    dsn = server.create_database()
    try:
        _install(dsn, None, [SCHEMA], server.version)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("ANALYZE")
        yield dsn
    finally:
        server.drop_database(dsn)


@pytest.fixture(scope="module")
def starting_points(pg_server_latest: PostgresServer) -> Iterator[dict[str, str]]:
    """The two "current schemas", made once on the newest tested server: by hand
    (schema.sql, as `--schema-sql` does) and copied from the user database (as `--dsn
    --sample` does). Each fixture is traced on a fresh copy of each (CREATE DATABASE ...
    TEMPLATE), so the comparison costs two traces per fixture."""
    server = pg_server_latest
    by_hand, copied = server.create_database(), server.create_database()
    try:
        with user_database(server) as user:
            _install(by_hand, None, [SCHEMA], server.version)
            clone_into(CloneSource(user, sample=ALL_ROWS), copied, server.version)
        yield {"by hand": by_hand, "copied": copied}
    finally:
        server.drop_database(by_hand)
        server.drop_database(copied)


def _blocks_writers(trace: StatementTrace) -> bool:
    return any(blocks_writes(lock.mode) for lock in trace.locks)


def trace_from(server: PostgresServer, template: str, path: Path) -> TraceResult:
    """Trace one fixture on a fresh database made from `template`."""
    name = f"agentddl_{secrets.token_hex(6)}"
    origin = str(conninfo_to_dict(template)["dbname"])
    with psycopg.connect(server.admin_dsn, autocommit=True) as conn:
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}")
        conn.execute(create.format(sql.Identifier(name), sql.Identifier(origin)))
    try:
        blockers = parse(path).blockers
        alongside = (lambda dsn: holding(dsn, blockers)) if blockers else None
        files = load_migrations([path], server.version)
        options = TraceOptions(alongside=alongside)
        return trace_on(with_dbname(server.admin_dsn, name), server.version, files, options)
    finally:
        server.drop_database(name)


def verdicts(result: TraceResult) -> list[Verdict]:
    """What each statement did, as the rules judge it (not how long it took). Left out:
    the locks of a CONCURRENTLY statement, which are what the watcher happened to sample
    while it ran (it cannot run in a transaction the tracer reads them in) — and so its
    scans too, which count only under a sampled write-blocking lock (REINDEX CONCURRENTLY's
    last moment on the dead old index is sampled in one run and not in another) — and the
    scans of a statement that blocks no writer (a query's plan, which the data's layout and
    statistics choose; a scan under a write-blocking lock is a verdict, ADT102)."""
    return [
        (
            trace.line,
            None if _sampled(trace) else sorted((k.relation, k.mode) for k in trace.locks),
            sorted((lock.relation, lock.mode) for lock in trace.waited_for),
            sorted(trace.rewritten),
            sorted(trace.scanned) if _blocks_writers(trace) and not _sampled(trace) else None,
            sorted(trace.emptied),
            (trace.error or "")[:5],  # the SQLSTATE
            sorted(trace.left_invalid),
            codes_at(result.findings, trace),
        )
        for trace in result.statements
    ]


def _sampled(trace: StatementTrace) -> bool:
    """A CONCURRENTLY statement: its locks are what the watcher happened to sample."""
    return _CONCURRENTLY.search(trace.sql) is not None


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.name)
def test_a_copy_gives_the_verdicts_of_the_hand_made_setup(
    pg_server_latest: PostgresServer, starting_points: dict[str, str], path: Path
) -> None:
    """Same verdicts, statement by statement. A fixture whose sessions hold locks on a
    timer (`-- alongside`) is judged by its documented expectations on both: which locks
    the watcher happens to sample around a timed wait varies from run to run."""
    copied = trace_from(pg_server_latest, starting_points["copied"], path)
    fixture = parse(path)
    if fixture.blockers:
        assert_expectations(fixture, copied)
        return
    by_hand = trace_from(pg_server_latest, starting_points["by hand"], path)
    assert verdicts(copied) == verdicts(by_hand)
    assert verdicts(by_hand), f"{path.name}: nothing traced"


def snapshot(dsn: str) -> list[tuple[object, ...]]:
    """Every relation of the user database with its storage, and each table's rows."""
    with psycopg.connect(dsn) as conn:
        relations = conn.execute(
            "SELECT c.oid::regclass::text, c.relkind, c.relfilenode FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1"
        ).fetchall()
        tables = [name for name, kind, _ in relations if kind == "r"]
        counts = [
            (name, conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.SQL(str(name)))).fetchone())
            for name in tables
        ]
    return [*relations, *counts]


def test_the_cli_copies_and_leaves_the_user_database_as_it_was(
    trace_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """On 15 too: pg_dump 18's dump (SET transaction_timeout) restores on an older server."""
    migration = str(FIXTURES / "06_int_to_bigint.sql")
    with user_database(trace_server) as user:
        before, databases = snapshot(user), database_names(trace_server)
        code = main(["trace", migration, "--clone", user, "--sample", "100", "--format", "json"])
        assert snapshot(user) == before
        assert database_names(trace_server) == databases  # the scratch database is gone
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # the rewrite, on the copy
    (statement,) = report["statements"]
    assert "public.orders" in statement["rewritten"] and "public.orders" in statement["scanned"]


def database_names(server: PostgresServer) -> set[str]:
    with psycopg.connect(server.admin_dsn) as conn:
        return {name for (name,) in conn.execute("SELECT datname FROM pg_database")}
