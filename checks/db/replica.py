"""A streaming replica of an embedded primary: a second local server on its own port,
for the failover scenario of prove.

The embedded binaries have initdb, pg_ctl and postgres only (no pg_basebackup), so the
base copy is taken with the low-level backup API: the primary in backup mode
(`pg_backup_start`, `pg_start_backup` before 15), its data directory copied file by file
(without the server's pid file and the WAL, which the replica streams from the slot
reserved before the copy), then the `backup_label` the backup's end returns written into
the copy. A `standby.signal`, `primary_conninfo` and a physical replication slot make the
copy a hot standby that streams from the primary. Synchronous: the primary waits for the
replica's flush before it acknowledges a commit (`synchronous_standby_names = '*'`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

from agentddl.checks.db.connect import DatabaseError, connect
from agentddl.checks.db.embedded import EmbeddedCluster
from agentddl.generator.errors import AgentDDLError

SLOT = "agentddl_replica"
STREAMING_TIMEOUT_SECONDS = 30.0
# what the copy leaves out: the primary's lock file and what the server makes again
SKIPPED = {"postmaster.pid", "postmaster.opts", "pg_internal.init"}
EMPTIED = {"pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem", "pg_notify", "pg_serial", "pg_snapshots"}


class EmbeddedReplica(EmbeddedCluster):
    """A hot standby of `primary` (an embedded cluster prove started), streaming from it
    through a physical slot; `synchronous`: the primary acknowledges a commit only once
    the replica has flushed it. `stop()` also releases the primary from waiting for it."""

    def __init__(self, primary: EmbeddedCluster, synchronous: bool) -> None:
        self.primary, self.synchronous = primary, synchronous
        replication = {
            "primary_conninfo": f"host=127.0.0.1 port={primary.port} user=postgres application_name={SLOT}",
            "primary_slot_name": SLOT,
            "hot_standby": "on",
        }
        super().__init__(primary.bin_dir, primary.major, primary.durable, {**primary.settings, **replication})
        self.what = f"a replica of {primary.what}"

    def prepare(self) -> None:
        """The base copy of the primary's data directory, made a standby."""
        data = self.root / "data"
        with connect(self.primary.admin_dsn) as conn:
            conn.execute("SELECT pg_create_physical_replication_slot(%s, true)", [SLOT])
            conn.execute(_backup_start(self.major), ["agentddl-replica"])
            try:
                _copy_data_dir(self.primary.root / "data", data)
            finally:
                row = conn.execute(_backup_stop(self.major)).fetchone()
        if row is None:
            raise AgentDDLError(f"{self.primary.what} returned no backup label")
        label, tablespace_map = row
        (data / "backup_label").write_text(label)
        if tablespace_map:
            (data / "tablespace_map").write_text(tablespace_map)
        (data / "standby.signal").touch()
        self._own_tree(data)

    def start(self) -> None:
        """Start the standby, make the primary wait for it when synchronous, and return
        once the primary streams to it."""
        super().start()
        if self.synchronous:
            self._primary_setting("SET synchronous_standby_names = '*'")
        self.wait_streaming()

    def wait_streaming(self) -> None:
        """Until the primary's pg_stat_replication shows the replica streaming (and, when
        synchronous, as its synchronous standby)."""
        wanted = "sync" if self.synchronous else "async"
        deadline = time.monotonic() + STREAMING_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            with connect(self.primary.admin_dsn) as conn:
                row = conn.execute(
                    "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = %s", [SLOT]
                ).fetchone()
            if row == ("streaming", wanted):
                return
            time.sleep(0.05)
        raise AgentDDLError(
            f"{self.what} is not streaming ({wanted}) after {STREAMING_TIMEOUT_SECONDS:.0f} s; "
            f"replica log:\n{self.log_tail()}"
        )

    def walsender_pid(self) -> int:
        """The primary's process that sends WAL to this replica."""
        with connect(self.primary.admin_dsn) as conn:
            row = conn.execute(
                "SELECT pid FROM pg_stat_replication WHERE application_name = %s", [SLOT]
            ).fetchone()
        if row is None:
            raise AgentDDLError(f"{self.primary.what} has no walsender for {self.what}")
        return int(row[0])

    def lag(self) -> dict[str, Any]:
        """How far the replica is behind the primary now: bytes of WAL not yet replayed,
        and seconds since the commit it replayed last (the primary's clock: one machine)."""
        with connect(self.primary.admin_dsn) as primary, connect(self.admin_dsn) as replica:
            now, current = _one(primary, "SELECT clock_timestamp(), pg_current_wal_lsn()")
            replayed_at, replayed = _one(
                replica, "SELECT pg_last_xact_replay_timestamp(), pg_last_wal_replay_lsn()"
            )
            (behind,) = _one(primary, "SELECT pg_wal_lsn_diff(%s, %s)", [current, replayed])
        seconds = (now - replayed_at).total_seconds() if replayed_at is not None else None
        return {"bytes": int(behind), "seconds": None if seconds is None else round(max(seconds, 0.0), 3)}

    def promote(self) -> None:
        """Promote the replica (it stops streaming and accepts writes); back once it does."""
        with connect(self.admin_dsn, timeout=5) as conn:
            (promoted,) = _one(conn, "SELECT pg_promote(true, 60)")
        if not promoted:
            raise AgentDDLError(f"{self.what} was not promoted within 60 s; log:\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the replica; a primary still running stops waiting for it and drops its slot."""
        super().stop()
        with contextlib.suppress(DatabaseError):
            self.release_primary()

    def release_primary(self) -> None:
        """The primary without this replica: no synchronous standby, no slot kept."""
        if self.synchronous:
            self._primary_setting("RESET synchronous_standby_names")
        with connect(self.primary.admin_dsn) as conn:
            conn.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE slot_name = %s AND NOT active",
                [SLOT],
            )

    def _primary_setting(self, change: str) -> None:
        with connect(self.primary.admin_dsn) as conn:
            conn.execute(f"ALTER SYSTEM {change}")
            conn.execute("SELECT pg_reload_conf()")

    def _own_tree(self, top: Path) -> None:
        for folder, dirs, files in os.walk(top):
            self.own(Path(folder))
            for name in (*dirs, *files):
                self.own(Path(folder) / name)


def _backup_start(major: int) -> str:
    if major >= 15:
        return "SELECT pg_backup_start(%s, true)"
    return "SELECT pg_start_backup(%s, true, false)"


def _backup_stop(major: int) -> str:
    if major >= 15:
        return "SELECT labelfile, spcmapfile FROM pg_backup_stop(false)"
    return "SELECT labelfile, spcmapfile FROM pg_stop_backup(false, false)"


def _one(conn: Any, statement: str, params: list[Any] | None = None) -> tuple[Any, ...]:
    row = conn.execute(statement, params).fetchone()
    if row is None:
        raise AgentDDLError(f"no row from {statement}")
    return tuple(row)


def _copy_data_dir(source: Path, target: Path) -> None:
    """Every file of a running server's data directory (a file removed while the copy
    runs is skipped: recovery from the backup label replays what it held)."""
    for folder, dirs, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        (target / relative).mkdir(mode=0o700, exist_ok=True)
        if relative.parts and relative.parts[0] in EMPTIED:
            dirs.clear()
            if relative == Path("pg_wal"):
                (target / relative / "archive_status").mkdir(mode=0o700, exist_ok=True)
            continue
        for name in files:
            if name in SKIPPED or name.startswith("pgsql_tmp"):
                continue
            with contextlib.suppress(FileNotFoundError):
                shutil.copy2(Path(folder) / name, target / relative / name)
