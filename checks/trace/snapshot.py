"""What the migrating session sees of the catalog around one statement.

Read on the migrating connection itself, so uncommitted changes of its own transaction
(a new relfilenode, a new index) are visible. Scans: inside a transaction the backend's
own pending counters (pg_stat_xact_user_tables) are exact and private to the session;
a statement that must run outside one (CONCURRENTLY) is measured on the shared counters,
flushed on the spot on 15+ (pg_stat_force_next_flush) and awaited from the asynchronous
stats collector on 14.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from agentddl.checks.db import connect

_USER_FILTER = """
  c.relkind IN ('r', 'i', 'm', 'p', 'I')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg\\_%temp\\_%'
"""
# User relations, and each table's TOAST table named after it ("agent.runs (toast)"): a
# rewrite gives the TOAST table new storage too.
RELATIONS_SQL = f"""
SELECT c.oid::int8, n.nspname || '.' || c.relname, c.relkind::text, c.relfilenode::int8
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {_USER_FILTER}
UNION ALL
SELECT t.oid::int8, n.nspname || '.' || c.relname || ' (toast)', 't', t.relfilenode::int8
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_class t ON t.oid = c.reltoastrelid
WHERE {_USER_FILTER}
"""
# Sizes open every relation (an AccessShareLock each, held to the end of a transaction):
# read once before the migration, on a connection of their own, never inside it.
SIZES_SQL = f"SELECT oid, name, pg_relation_size(oid) FROM ({RELATIONS_SQL}) AS r(oid, name, kind, filenode)"
OWN_LOCKS_SQL = """
SELECT l.relation::int8, l.mode FROM pg_locks l
WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
SETTINGS_SQL = """
SELECT name, setting::int FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout')
"""
INVALID_INDEXES_SQL = "SELECT indexrelid::int8 FROM pg_index WHERE NOT indisvalid"
_COUNTERS = "relid::int8, seq_scan, seq_tup_read, n_tup_upd + n_tup_del"
XACT_SCANS_SQL = f"SELECT {_COUNTERS} FROM pg_stat_xact_user_tables"
SHARED_SCANS_SQL = f"SELECT {_COUNTERS} FROM pg_stat_user_tables"
STATS_WAIT_SECONDS = 1.5  # PostgreSQL 14's collector: at most this long for counters to arrive


@dataclass(frozen=True)
class Relation:
    name: str
    kind: str  # pg_class.relkind
    filenode: int


Counters = tuple[int, int, int]  # seq_scan, seq_tup_read, n_tup_upd + n_tup_del


@dataclass
class Snapshot:
    """Relations by oid, counters by table oid (sequential scans, rows read by them, rows
    updated or deleted), timeouts in force (ms)."""

    relations: dict[int, Relation] = field(default_factory=dict)
    scans: dict[int, Counters] = field(default_factory=dict)
    settings: dict[str, int] = field(default_factory=dict)


Conn = psycopg.Connection[Any]


def take(conn: Conn, shared_scans: bool = False) -> Snapshot:
    """Relations, scan counters and timeouts as `conn` sees them now."""
    relations = {
        oid: Relation(name, kind, filenode)
        for oid, name, kind, filenode in conn.execute(RELATIONS_SQL).fetchall()
    }
    scans = _counters(conn, SHARED_SCANS_SQL if shared_scans else XACT_SCANS_SQL)
    settings = dict(conn.execute(SETTINGS_SQL).fetchall())
    return Snapshot(relations, scans, settings)


def existing(dsn: str) -> dict[int, tuple[str, int]]:
    """Every relation before the migration runs: oid -> (name, bytes in its main fork)."""
    with connect(dsn) as conn:
        return {oid: (name, size) for oid, name, size in conn.execute(SIZES_SQL).fetchall()}


def own_locks(conn: Conn) -> list[tuple[int, str]]:
    """(relation oid, mode) of every relation lock the session holds in this database."""
    return [(oid, mode) for oid, mode in conn.execute(OWN_LOCKS_SQL).fetchall()]


def invalid_indexes(conn: Conn) -> list[int]:
    """Oids of the indexes marked invalid (a failed CREATE INDEX / REINDEX CONCURRENTLY)."""
    return [oid for (oid,) in conn.execute(INVALID_INDEXES_SQL).fetchall()]


def prepare_shared_scans(conn: Conn, version: int) -> None:
    """Make the shared counters current before reading them. 15+: the flag makes the
    session flush its pending counters when it goes idle after this very query."""
    conn.execute("SELECT pg_stat_force_next_flush()" if version >= 15 else "SELECT pg_stat_clear_snapshot()")


def shared_scans_after(conn: Conn, version: int, before: dict[int, Counters]) -> dict[int, Counters]:
    """The shared counters after an autocommit statement: flushed by it on 15+, else polled
    until the collector delivers something new (or STATS_WAIT_SECONDS pass)."""
    if version >= 15:
        prepare_shared_scans(conn, version)
        return _shared(conn)
    deadline = time.monotonic() + STATS_WAIT_SECONDS
    while True:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        now = _shared(conn)
        if now != before or time.monotonic() > deadline:
            return now
        time.sleep(0.1)


def _shared(conn: Conn) -> dict[int, Counters]:
    return _counters(conn, SHARED_SCANS_SQL)


def _counters(conn: Conn, query: str) -> dict[int, Counters]:
    return {oid: (seq, read, written) for oid, seq, read, written in conn.execute(query).fetchall()}


def rewritten(before: Snapshot, after: Snapshot) -> list[int]:
    """Oids (as before) of the relations with new storage after: a new relfilenode, or
    dropped and rebuilt under the same name, as ALTER COLUMN TYPE does to its indexes and
    REINDEX CONCURRENTLY to its index."""
    now_by_name = {rel.name: rel for rel in after.relations.values()}
    found = []
    for oid, rel in before.relations.items():
        now = after.relations.get(oid) or now_by_name.get(rel.name)
        if rel.filenode != 0 and now is not None and now.filenode != rel.filenode:
            found.append(oid)
    return found


def tables(snap: Snapshot, oids: list[int]) -> list[int]:
    """Of these relations, the tables and materialized views."""
    return [oid for oid in oids if oid in snap.relations and snap.relations[oid].kind in "rm"]


def emptied(conn: Conn, before: Snapshot, after: Snapshot, rewritten_oids: list[int]) -> list[int]:
    """The rewritten tables whose new storage holds nothing (TRUNCATE gives a table new,
    empty files). Read on the migrating session, which already holds a lock on each."""
    candidates = [oid for oid in tables(before, rewritten_oids) if oid in after.relations]
    if not candidates:
        return []
    empty = conn.execute(
        "SELECT oid::int8 FROM unnest(%s::oid[]) AS oid WHERE pg_relation_size(oid) = 0", [candidates]
    ).fetchall()
    return [oid for (oid,) in empty]


def scanned(before: dict[int, Counters], after: dict[int, Counters]) -> list[int]:
    """Tables whose sequential-scan counter went up (index builds and validations count)."""
    return sorted(oid for oid, (seq, _read, _w) in after.items() if seq > before.get(oid, (0, 0, 0))[0])


def written(before: dict[int, Counters], after: dict[int, Counters]) -> dict[int, int]:
    """Rows each table had updated or deleted between the two (each one row-locked until
    the transaction ends). Exact from the session's own pending counters."""
    rows = {oid: w - before.get(oid, (0, 0, 0))[2] for oid, (_seq, _read, w) in after.items()}
    return {oid: n for oid, n in rows.items() if n > 0}
