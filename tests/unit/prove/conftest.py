"""The CLI tests here give every option on the command line: an $AGENTDDL_DSN or
$AGENTDDL_SERVER of the environment (a developer's, CI's) must not add one."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_database_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    monkeypatch.delenv("AGENTDDL_SERVER", raising=False)
