"""A throwaway local server process: the embedded PostgreSQL, Redis for the hot
projection and PgBouncer are each one subclass of `LocalServer`.

Each lives in a temp dir of its own, listens on 127.0.0.1 on a free port (a lost race
for the port is retried), runs as an unprivileged system user when we are root
(PostgreSQL refuses root; the others follow it), and never outlives this process:
`stop()` (or the end of its with-block) stops it and removes its dir, the interpreter's
exit stops whatever is still registered, and a server started from the main thread also
gets the parent-death signal, for when this process is killed before atexit can run.
"""

from __future__ import annotations

import abc
import atexit
import contextlib
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
from types import TracebackType
from typing import Any, ClassVar, Self

from agentddl.generator.errors import AgentDDLError

# PostgreSQL refuses to run as root; as root we run every server as this system user.
SERVER_USER = "agentddl-pg"
USERADD_LOCK = Path(tempfile.gettempdir()) / "agentddl-useradd.lock"
PORT_ATTEMPTS = 3
POLL_SECONDS = 0.05
SHM_DIR = Path("/dev/shm")
SHM_MIN_FREE_BYTES = 2 << 30  # Docker's default 64 MB /dev/shm would not do
PROC = Path("/proc")


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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def scratch_parent() -> Path:
    """Where throwaway dirs go: $AGENTDDL_PG_TMPDIR, else RAM-backed /dev/shm when it
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


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class LocalServer(abc.ABC):
    """One server process in its own temp dir (`root`), its output in `log_path`.

    A subclass says what to run (`command()`, for `self.port`), when it serves
    (`answers()`), and optionally what to do once before the first start (`prepare()`)
    and the environment to run it in (`env()`)."""

    what: str = "server"  # how messages name it, e.g. "PostgreSQL 16 (/usr/lib/...)"
    startup_timeout: ClassVar[float] = 30.0
    stop_timeout: ClassVar[float] = 10.0
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM
    death_signal: ClassVar[str] = "TERM"  # setpriv's name of the parent-death signal
    port_taken: ClassVar[str] = "Address already in use"  # its log line for a lost port race

    def __init__(self, prefix: str, log_name: str, parent: Path | None = None) -> None:
        self.user = server_user()
        self.root = Path(tempfile.mkdtemp(prefix=prefix, dir=parent or scratch_parent()))
        self.log_path = self.root / log_name
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.own(self.root)

    @abc.abstractmethod
    def command(self) -> list[str]:
        """The command line of the server, listening on 127.0.0.1:`self.port`."""

    @abc.abstractmethod
    def answers(self) -> bool:
        """One readiness probe: True once the server serves."""

    def prepare(self) -> None:
        """Once, before the first start (e.g. initdb); nothing by default."""
        return None

    def env(self) -> dict[str, str] | None:
        """The server's environment (None: this process's)."""
        return None

    def own(self, path: Path) -> None:
        """Make `path` the server user's (when we are root), so the server can use it."""
        if self.user is not None:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def popen(self, command: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """Popen as the server user, in the temp dir, in the server's environment."""
        user = self.user
        return subprocess.Popen(
            command,
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
            extra_groups=[] if user else None,
            **kwargs,
        )

    def log_tail(self, lines: int = 20) -> str:
        return tail(self.log_path, lines)

    def start(self) -> None:
        """Prepare, then start on a free port until it answers (a lost race for the port
        is tried again); on any failure nothing is left running or on disk."""
        try:
            self.prepare()
            for _ in range(PORT_ATTEMPTS):
                self.process = self._spawn()
                if self._wait_ready(self.process):
                    _register(self)
                    return
                if self.port_taken not in self.log_tail():
                    break  # not a lost race for the port: retrying will not help
            raise AgentDDLError(f"{self.what} exited during startup; server log:\n{self.log_tail()}")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the process (`stop_signal`, then SIGKILL after `stop_timeout`) and remove
        the temp dir. Safe to call again."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(self.stop_signal)
            try:
                process.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _unregister(self)
        shutil.rmtree(self.root, ignore_errors=True)

    def crash(self) -> int:
        """Kill every process of the server at once (SIGKILL), as a power loss leaves it:
        nothing shuts down cleanly. The temp dir stays, for `restart()`. Returns how many
        processes were killed. A PostgreSQL postmaster's children make themselves
        process-group leaders (setsid), so a signal to its group would reach it alone:
        the main process is stopped first (it starts no new child), then its children
        and itself are killed back to back."""
        process = self.process
        if process is None or process.poll() is not None:
            raise AgentDDLError(f"{self.what} is not running: nothing to crash")
        killed = kill_tree(process.pid)
        process.wait()
        return killed

    def restart(self) -> None:
        """Start the server again on its dir and port (after `crash()`: a PostgreSQL
        server recovers from its WAL first); back when it answers."""
        process = self._spawn(self.port)
        if not self._wait_ready(process):
            raise AgentDDLError(f"{self.what} did not start again; server log:\n{self.log_tail()}")
        self.process = process

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def _spawn(self, port: int | None = None) -> subprocess.Popen[bytes]:
        self.port = port or free_port()
        command = self.command()
        # Started from the main thread, the server also dies with this process if it is
        # killed before atexit can run (PR_SET_PDEATHSIG fires when the *thread* exits).
        if threading.current_thread() is threading.main_thread() and shutil.which("setpriv"):
            command = ["setpriv", "--pdeathsig", self.death_signal, "--", *command]
        with self.log_path.open("ab") as log:
            return self.popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_ready(self, process: subprocess.Popen[bytes]) -> bool:
        """True once it answers; False if it exited (e.g. lost the race for the port)."""
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if self.answers():
                return True
            time.sleep(POLL_SECONDS)
        raise AgentDDLError(
            f"{self.what} did not answer within {self.startup_timeout:.0f} s; server log:\n{self.log_tail()}"
        )


def kill_tree(pid: int) -> int:
    """SIGSTOP `pid`, then SIGKILL each of its children and itself; waits (10 s at most)
    until the children are gone. How many processes that was."""
    os.kill(pid, signal.SIGSTOP)
    children = children_of(pid)
    for child in (*children, pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
    deadline = time.monotonic() + 10.0
    while any(_alive(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(children) + 1


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in PROC.iterdir():
        stat = proc_stat(int(entry.name)) if entry.name.isdigit() else None
        if stat is not None and int(stat[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    stat = proc_stat(pid)
    return stat is not None and stat[0] != "Z"  # a zombie is dead, only not yet reaped


def proc_stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name (state, ppid, ..., utime at [11],
    stime at [12]); None: no such process."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # the name may hold spaces and parentheses


_running: set[LocalServer] = set()
_running_lock = threading.Lock()


def _register(server: LocalServer) -> None:
    with _running_lock:
        _running.add(server)


def _unregister(server: LocalServer) -> None:
    with _running_lock:
        _running.discard(server)


@atexit.register
def _stop_all() -> None:
    """No orphan server after the interpreter exits, even if nobody called stop()."""
    with _running_lock:
        servers = list(_running)
    for server in servers:
        server.stop()
