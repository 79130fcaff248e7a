"""Start and stop a throwaway PostgreSQL cluster from local binaries (initdb + postgres)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from agentddl.checks.db.connect import DatabaseError, connect
from agentddl.checks.db.installations import library_env
from agentddl.checks.db.process import LocalServer, scratch_parent
from agentddl.generator.errors import AgentDDLError

STARTUP_TIMEOUT_SECONDS = 30.0
# Scratch data: durability is worthless here, speed and many concurrent workers are not.
SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "full_page_writes": "off",
    "synchronous_commit": "off",
    "max_connections": "200",
    "shared_preload_libraries": "",
}
# A durable server (e.g. for `agentddl bench`'s durable-commit floor): what a production
# server does at COMMIT, on a disk file system (fsync on tmpfs costs nothing).
DURABLE_SETTINGS = {"fsync": "on", "full_page_writes": "on", "synchronous_commit": "on"}


def _pid_alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text().split()[0]), 0)
    except PermissionError:
        return True  # alive, someone else's
    except (OSError, ValueError, IndexError):
        return False  # no pid file, garbage in it, or nobody with that pid
    return True


def durable_parent() -> Path:
    """Where a durable cluster's temp dir goes: $AGENTDDL_PG_TMPDIR, else the usual temp
    dir (never /dev/shm: a commit's fsync must reach a disk to cost what it costs)."""
    return Path(os.environ.get("AGENTDDL_PG_TMPDIR") or tempfile.gettempdir())


def remove_stale_dirs(min_age_seconds: float = 600) -> None:
    """Temp dirs left by a process that was killed before it could clean up (SIGKILL).

    Only old dirs whose postmaster is gone: a young dir may be mid-initdb in another process.
    """
    parents = {scratch_parent(), Path(tempfile.gettempdir())}
    for root in (root for parent in parents for root in parent.glob("agentddl-pg*-*")):
        try:
            age = time.time() - root.stat().st_mtime
        except OSError:
            continue
        if age > min_age_seconds and not _pid_alive(root / "data" / "postmaster.pid"):
            shutil.rmtree(root, ignore_errors=True)


class EmbeddedCluster(LocalServer):
    """One initdb'd data dir in a temp dir and the postmaster serving it on 127.0.0.1.

    durable: fsync, full_page_writes and synchronous_commit on, the data dir on disk;
    otherwise (scratch data) all three off, in RAM where there is room. settings: more
    server settings, over those (e.g. shared_preload_libraries for a benchmark's probes).
    Stopped by an immediate shutdown (SIGQUIT): the data is scratch."""

    startup_timeout = STARTUP_TIMEOUT_SECONDS
    stop_signal = signal.SIGQUIT
    death_signal = "QUIT"
    port_taken = "could not create any TCP/IP sockets"

    def __init__(
        self, bin_dir: Path, major: int, durable: bool = False, settings: dict[str, str] | None = None
    ) -> None:
        self.bin_dir, self.major, self.durable = bin_dir, major, durable
        self.settings = dict(settings or {})
        self.what = f"PostgreSQL {major} ({bin_dir})"
        remove_stale_dirs()
        parent = durable_parent() if durable else scratch_parent()
        super().__init__(f"agentddl-pg{major}-", "postgres.log", parent)

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def env(self) -> dict[str, str]:
        return library_env(self.bin_dir)

    def prepare(self) -> None:
        """initdb, as the server user."""
        command = [
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.root / "data"),
            "--auth=trust",
            "-U",
            "postgres",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        ]
        initdb = self.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            output, _ = initdb.communicate(timeout=STARTUP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            initdb.kill()
            output, _ = initdb.communicate()
            output += f"\n(killed after {STARTUP_TIMEOUT_SECONDS:.0f} s)".encode()
        if initdb.returncode != 0:
            raise AgentDDLError(
                f"initdb of PostgreSQL {self.major} ({self.bin_dir}) failed:\n"
                + output.decode(errors="replace").strip()
            )

    def command(self) -> list[str]:
        settings = {
            **SERVER_SETTINGS,
            **(DURABLE_SETTINGS if self.durable else {}),
            **self.settings,
            "port": str(self.port),
            "unix_socket_directories": str(self.root),
        }
        command = [str(self.bin_dir / "postgres"), "-D", str(self.root / "data")]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        return command

    def answers(self) -> bool:
        try:
            connect(self.admin_dsn, timeout=2).close()
        except DatabaseError:
            return False
        return True
