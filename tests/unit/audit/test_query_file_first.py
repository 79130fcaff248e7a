"""A mistake in a `--queries` file is reported before `audit --dsn` connects: the user
sees the file's line, not a connection error that hides it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main


def test_a_bad_budget_line_is_named_even_when_the_database_does_not_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.sql"
    queries.write_text("-- name: q()\n-- budget: abc\nSELECT 1;\n", encoding="utf-8")
    with socket.socket() as held:  # a port nothing answers on
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        code = main(["audit", "--dsn", f"postgresql://a@127.0.0.1:{port}/db", "--queries", str(queries)])
    err = capsys.readouterr().err
    assert code == 2
    expected = f"agentddl: {queries}:2:12: expected '-- budget: N ms' or '-- budget: N s' (N > 0), got 'abc'"
    assert err.splitlines() == [expected]
