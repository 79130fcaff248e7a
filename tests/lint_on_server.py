"""Lint a one-statement migration against a real database (`--schema-from DSN`) and ask
the same database whether PostgreSQL itself refuses the statement on its rows: the
tests of the data rules and of VALIDATE CONSTRAINT compare the two."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from agentddl.checks.cli.main import main


def lint_on(
    dsn: str,
    statement: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    line: int = 2,
    version: int | None = None,
) -> list[dict[str, str]]:
    """The findings on `line` of a migration: a lock_timeout, then `statement` (linted
    for PostgreSQL `version`, else the default target)."""
    (tmp_path / "m.sql").write_text(f"SET lock_timeout = '2s';\n{statement}\n")
    target = ["--pg-version", str(version)] if version is not None else []
    main(["lint", str(tmp_path / "m.sql"), "--schema-from", dsn, "--format", "json", *target])
    return [f for f in json.loads(capsys.readouterr().out)["findings"] if f["line"] == line]


def refused(dsn: str, statement: str) -> bool:
    """Does PostgreSQL itself refuse the statement on these rows? (rolled back)"""
    return refusal(dsn, statement) is not None


def refusal(dsn: str, statement: str) -> type[psycopg.Error] | None:
    """The error class PostgreSQL refuses the statement with on these rows: a data or
    integrity error (the rows), a syntax error (the version); None when it runs.
    Rolled back."""
    with psycopg.connect(dsn) as conn:
        try:
            conn.execute(statement.replace("CONCURRENTLY ", ""))
        except (psycopg.errors.DataError, psycopg.errors.IntegrityError, psycopg.errors.SyntaxError) as error:
            return type(error)
        finally:
            conn.rollback()
    return None
