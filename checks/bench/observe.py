"""What the server says about a segment: WAL, full-page images and CPU, before and after.

- WAL bytes: the difference of `pg_current_wal_insert_lsn()` (exact, no statistics lag);
  WAL records and full-page images: `pg_stat_wal` (14+; the clients force their
  statistics out before the second snapshot). Both are the whole server's: autovacuum
  and any other client count too, which is why a quiet server is the place to bench.
- HOT: updates of the schema's `runs` and how many of them were HOT, from
  `pg_stat_user_tables` (forced out by the clients like the WAL statistics).
- CPU: when the clients' server backends are processes of this machine (an embedded
  server, or a local one), their CPU time from /proc (`schedstat`, nanoseconds; `stat`
  ticks where it is missing), and that of every process of the server (walwriter,
  checkpointer, autovacuum, ...). Otherwise `pg_stat_database.active_time`: the wall
  time sessions spent in statements, waits included — an upper bound, and said so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from agentddl.checks.db.process import PROC, children_of, proc_stat

CPU_FROM_PROC = "/proc: the clients' server backends"
CPU_FROM_ACTIVE_TIME = "pg_stat_database.active_time (wall time in statements, waits included)"
SETTINGS = (
    "server_version",
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_sync_method",
    "wal_level",
    "wal_compression",
    "commit_delay",
    "shared_buffers",
    "checkpoint_timeout",
    "max_wal_size",
    "data_directory",
)
RAM_FILE_SYSTEMS = frozenset({"tmpfs", "ramfs"})
COUNTERS = (
    "wal_position",
    "wal_records",
    "wal_fpi",
    "active_ms",
    "commits",
    "runs_updates",
    "runs_hot_updates",
)
SNAPSHOT = """
SELECT pg_current_wal_insert_lsn()::text AS lsn,
    pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS wal_position,
    w.wal_records::float8 AS wal_records, w.wal_fpi::float8 AS wal_fpi,
    d.active_time::float8 AS active_ms, d.xact_commit::float8 AS commits,
    coalesce(t.n_tup_upd, 0)::float8 AS runs_updates, coalesce(t.n_tup_hot_upd, 0)::float8 AS runs_hot_updates
FROM pg_stat_wal AS w, pg_stat_database AS d
LEFT JOIN pg_stat_user_tables AS t ON t.schemaname = %(schema)s AND t.relname = 'runs'
WHERE d.datname = current_database()
"""


@dataclass(frozen=True)
class Snapshot:
    at: float  # time.monotonic()
    lsn: str  # the WAL insert position (pg_waldump -s/-e reads what a segment wrote)
    counters: dict[str, float]  # SNAPSHOT's other columns
    backends_ns: int | None  # CPU of the clients' backends (None: not local)
    server_ns: dict[int, int] = field(default_factory=dict)  # pid -> CPU of every server process


@dataclass(frozen=True)
class Delta:
    wal_from: str  # LSNs around the segment
    wal_to: str
    seconds: float
    wal_bytes: float
    wal_records: float
    wal_fpi: float
    active_ms: float
    commits: float
    backends_cpu_ms: float | None
    server_cpu_ms: float | None
    runs_updates: float = 0.0  # updates of the schema's runs table (pg_stat_user_tables)
    runs_hot_updates: float = 0.0  # ... of which HOT (no index entry written)


def server_settings(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """The settings that decide what a commit costs, as the server reports them (those
    the session may not read, e.g. data_directory for a non-superuser, are left out)."""
    rows = conn.execute(
        "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)", [list(SETTINGS)]
    ).fetchall()
    found = {row[0]: row[1] for row in rows}
    return {name: found[name] for name in SETTINGS if name in found}


def not_durable(settings: dict[str, str], file_system: str | None) -> list[str]:
    """Why a commit on this server is not a durable one (empty: it is)."""
    reasons = [
        f"{name}={settings[name]}" for name in ("fsync", "full_page_writes") if settings.get(name) == "off"
    ]
    if settings.get("synchronous_commit") == "off":
        reasons.append("synchronous_commit=off")
    if file_system in RAM_FILE_SYSTEMS:
        reasons.append(f"the data directory is on {file_system} (fsync costs nothing)")
    return reasons


def file_system_of(path: str | None) -> str | None:
    """The file system type /proc/mounts gives for `path` (None: unknown, not local)."""
    if not path or not Path(path).exists():
        return None
    best, kind = "", None
    try:
        mounts = (PROC / "mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        parts = line.split()
        if len(parts) < 3 or len(parts[1]) < len(best):
            continue
        if path == parts[1] or path.startswith(parts[1].rstrip("/") + "/"):
            best, kind = parts[1], parts[2]
    return kind


def process_cpu_ns(pid: int) -> int | None:
    """CPU time a process has used so far, in nanoseconds (None: no such local process)."""
    try:
        return int((PROC / str(pid) / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    fields = proc_stat(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def is_local_backend(pid: int) -> bool:
    try:
        return (PROC / str(pid) / "comm").read_text().strip() in ("postgres", "postmaster")
    except OSError:
        return False


def parent_pid(pid: int) -> int | None:
    fields = proc_stat(pid)
    return None if fields is None else int(fields[1])


class Observer:
    """Snapshots of the server around each segment, on the coordinator's connection."""

    def __init__(self, conn: psycopg.Connection[Any], backend_pids: list[int], schema: str = "") -> None:
        self.conn, self.backend_pids, self.schema = conn, backend_pids, schema
        self.local = bool(backend_pids) and all(is_local_backend(pid) for pid in backend_pids)
        self.postmaster = parent_pid(backend_pids[0]) if self.local else None
        self.cpu_source = CPU_FROM_PROC if self.local else CPU_FROM_ACTIVE_TIME

    def snapshot(self) -> Snapshot:
        row = self.conn.execute(SNAPSHOT, {"schema": self.schema}).fetchone()
        assert row is not None
        names = COUNTERS
        counters = dict(zip(names, (float(v or 0) for v in row[1:]), strict=True))
        if not self.local:
            return Snapshot(time.monotonic(), row[0], counters, None)
        backends = [process_cpu_ns(pid) for pid in self.backend_pids]
        server = {pid: process_cpu_ns(pid) for pid in children_of(self.postmaster or 0)}
        return Snapshot(
            time.monotonic(),
            row[0],
            counters,
            sum(b for b in backends if b is not None),
            {pid: ns for pid, ns in server.items() if ns is not None},
        )

    @staticmethod
    def delta(before: Snapshot, after: Snapshot) -> Delta:
        c0, c1 = before.counters, after.counters
        backends = None
        if before.backends_ns is not None and after.backends_ns is not None:
            backends = (after.backends_ns - before.backends_ns) / 1e6
        server = None
        if after.server_ns:
            used = sum(ns - before.server_ns.get(pid, 0) for pid, ns in after.server_ns.items())
            server = used / 1e6
        return Delta(
            before.lsn,
            after.lsn,
            after.at - before.at,
            c1["wal_position"] - c0["wal_position"],
            c1["wal_records"] - c0["wal_records"],
            c1["wal_fpi"] - c0["wal_fpi"],
            c1["active_ms"] - c0["active_ms"],
            c1["commits"] - c0["commits"],
            backends,
            server,
            c1.get("runs_updates", 0.0) - c0.get("runs_updates", 0.0),
            c1.get("runs_hot_updates", 0.0) - c0.get("runs_hot_updates", 0.0),
        )
