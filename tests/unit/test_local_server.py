"""The throwaway-process base (checks/db/process.py) with a server of its own (Python's
http.server): started on a free port until it answers, registered for the exit hook,
stopped with its temp dir gone; a server that exits at once fails with its log and
leaves nothing behind."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from agentddl.checks.db import process
from agentddl.checks.db.process import LocalServer
from agentddl.generator.errors import AgentDDLError

# As root the server runs as the unprivileged server user, who may not reach the venv's
# interpreter: the system's python3 where there is one.
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


class HttpServer(LocalServer):
    what = "http.server"
    startup_timeout = 20.0

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        super().__init__("agentddl-test-http-", "http.log")

    def command(self) -> list[str]:
        if self.fail:
            return [PYTHON, "-c", "import sys; print('no such option: --bogus'); sys.exit(2)"]
        return [PYTHON, "-m", "http.server", "--bind", "127.0.0.1", str(self.port)]

    def answers(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return False
        return True


def test_a_started_server_answers_and_stop_leaves_nothing() -> None:
    with HttpServer() as server:
        assert server.port and server.answers()
        assert server in process._running
        pid, root = server.process.pid if server.process else 0, server.root
        assert root.is_dir() and root.name.startswith("agentddl-test-http-")
    assert server not in process._running
    assert not root.exists() and not Path(f"/proc/{pid}").exists()
    server.stop()  # again: nothing to do


def test_a_server_that_exits_at_start_shows_its_log() -> None:
    server = HttpServer(fail=True)
    with pytest.raises(AgentDDLError, match=r"(?s)http.server exited during startup.*--bogus"):
        server.start()
    assert not server.root.exists() and server not in process._running
