"""One pool of prove worker processes for every prove test: the processes start once
(a spawned interpreter costs about half a second of CPU) and are pointed at each test's
database in turn. An $AGENTDDL_SERVER of the environment must not add a --server to the
CLI tests' command lines ($AGENTDDL_DSN is the tests' own server: see tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentddl.checks.prove import Pool


@pytest.fixture(scope="session")
def prove_pool() -> Iterator[Pool]:
    pool = Pool(3)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(autouse=True)
def no_server_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
