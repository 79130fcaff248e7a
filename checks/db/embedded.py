"""Start and stop a throwaway PostgreSQL cluster from local binaries (initdb + postgres)."""

from __future__ import annotations

import atexit
import fcntl
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from agentddl.checks.db.connect import DatabaseError, connect
from agentddl.checks.db.installations import library_env
from agentddl.generator.errors import AgentDDLError

# PostgreSQL refuses to run as root; as root we run it as this system user.
SERVER_USER = "agentddl-pg"
USERADD_LOCK = Path(tempfile.gettempdir()) / "agentddl-useradd.lock"
STARTUP_TIMEOUT_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 10.0
PORT_ATTEMPTS = 3
SHM_DIR = Path("/dev/shm")
SHM_MIN_FREE_BYTES = 2 << 30  # Docker's default 64 MB /dev/shm would not do
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


def server_user() -> pwd.struct_passwd | None:
    """The unprivileged user to run as when we are root (created if missing), else None."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        pass
    # Two processes starting their first server at once (pytest-xdist workers, two CLI
    # runs) must not both run useradd: concurrent writers of /etc/passwd left one with a
    # uid that no longer existed a moment later ("initdb: could not look up effective
    # user ID"). One creates the user under an exclusive lock; the others then read it.
    with open(USERADD_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(SERVER_USER)
        except KeyError:
            pass
        command = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        result = subprocess.run([*command, SERVER_USER], capture_output=True, text=True)
        if result.returncode != 0:
            raise AgentDDLError(
                f"PostgreSQL refuses to run as root and creating user {SERVER_USER} failed: "
                + result.stderr.strip()
            ) from None
        return pwd.getpwnam(SERVER_USER)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _pid_alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text().split()[0]), 0)
    except PermissionError:
        return True  # alive, someone else's
    except (OSError, ValueError, IndexError):
        return False  # no pid file, garbage in it, or nobody with that pid
    return True


def scratch_parent() -> Path:
    """Where cluster temp dirs go: $AGENTDDL_PG_TMPDIR, else RAM-backed /dev/shm when it
    has room (creating relation files on a disk file system made CREATE DATABASE 30x
    slower here: 0.25 s vs 0.007 s), else the usual temp dir."""
    if explicit := os.environ.get("AGENTDDL_PG_TMPDIR"):
        return Path(explicit)
    try:
        shm = os.statvfs(SHM_DIR)
        if shm.f_bavail * shm.f_frsize >= SHM_MIN_FREE_BYTES and os.access(SHM_DIR, os.W_OK):
            return SHM_DIR
    except OSError:
        pass
    return Path(tempfile.gettempdir())


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


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class EmbeddedCluster:
    """One initdb'd data dir in a temp dir and the postmaster serving it on 127.0.0.1.

    durable: fsync, full_page_writes and synchronous_commit on, the data dir on disk;
    otherwise (scratch data) all three off, in RAM where there is room. settings: more
    server settings, over those (e.g. shared_preload_libraries for a benchmark's probes)."""

    def __init__(
        self, bin_dir: Path, major: int, durable: bool = False, settings: dict[str, str] | None = None
    ) -> None:
        self.bin_dir, self.major, self.durable = bin_dir, major, durable
        self.settings = dict(settings or {})
        self.user = server_user()
        remove_stale_dirs()
        parent = durable_parent() if durable else scratch_parent()
        self.root = Path(tempfile.mkdtemp(prefix=f"agentddl-pg{major}-", dir=parent))
        self.log_path = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, command: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """Popen as the server user, in the temp dir, with the binaries' library path."""
        user = self.user
        return subprocess.Popen(
            command,
            cwd=self.root,
            env=library_env(self.bin_dir),
            stdin=subprocess.DEVNULL,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
            extra_groups=[] if user else None,
            **kwargs,
        )

    def _initdb(self) -> None:
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
        initdb = self._run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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

    def _spawn(self) -> subprocess.Popen[bytes]:
        self.port = _free_port()
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
        # Started from the main thread, the server also dies with this process if it is
        # killed before atexit can run (PR_SET_PDEATHSIG fires when the *thread* exits).
        if threading.current_thread() is threading.main_thread() and shutil.which("setpriv"):
            command = ["setpriv", "--pdeathsig", "QUIT", "--", *command]
        with self.log_path.open("ab") as log:
            return self._run(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_ready(self, process: subprocess.Popen[bytes]) -> bool:
        """True once it accepts connections; False if it exited (e.g. lost the port race)."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                connect(self.admin_dsn, timeout=2).close()
                return True
            except DatabaseError:
                time.sleep(0.05)
        raise AgentDDLError(
            f"PostgreSQL {self.major} did not accept connections within "
            f"{STARTUP_TIMEOUT_SECONDS:.0f} s; server log:\n{_tail(self.log_path)}"
        )

    def start(self) -> None:
        try:
            self._initdb()
            for _ in range(PORT_ATTEMPTS):
                self.process = self._spawn()
                if self._wait_ready(self.process):
                    _register(self)
                    return
                if "could not create any TCP/IP sockets" not in _tail(self.log_path):
                    break  # not a lost race for the port: retrying will not help
            raise AgentDDLError(
                f"PostgreSQL {self.major} ({self.bin_dir}) exited during startup; "
                f"server log:\n{_tail(self.log_path)}"
            )
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Immediate shutdown (SIGQUIT): the data is scratch. Then remove the temp dir."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _unregister(self)
        shutil.rmtree(self.root, ignore_errors=True)


_running: set[EmbeddedCluster] = set()
_running_lock = threading.Lock()


def _register(cluster: EmbeddedCluster) -> None:
    with _running_lock:
        _running.add(cluster)


def _unregister(cluster: EmbeddedCluster) -> None:
    with _running_lock:
        _running.discard(cluster)


@atexit.register
def _stop_all() -> None:
    """No orphan servers after the interpreter exits, even if nobody called close()."""
    with _running_lock:
        clusters = list(_running)
    for cluster in clusters:
        cluster.stop()
