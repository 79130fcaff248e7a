"""Two bench client processes for every bench test: they start once (a spawned
interpreter costs about half a second of CPU) and are pointed at each test's database in
turn. An $AGENTDDL_SERVER of the environment must not add a --server to the CLI tests'
command lines."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentddl.checks.bench import Clients

CLIENTS = 2


@pytest.fixture(scope="session")
def bench_clients() -> Iterator[Clients]:
    clients = Clients(CLIENTS)
    try:
        yield clients
    finally:
        clients.close()


@pytest.fixture(autouse=True)
def no_server_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
