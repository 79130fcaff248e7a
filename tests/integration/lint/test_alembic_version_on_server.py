"""`agentddl lint versions/ --schema-from postgresql://...` reads the database's
alembic_version rows (db.alembic_version, read-only) and judges the revisions against
them: a head that does not descend from the applied version is an error; a database
without the table is judged on nothing; the database is left as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic_revision import revision_file

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.alembic_version import applied_revisions


@pytest.fixture
def database(pg_server_latest: PostgresServer) -> Iterator[str]:
    with pg_server_latest.scratch_database() as dsn:
        yield dsn


@pytest.fixture
def versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """base0 -> deployed1, and late1 written against base0."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "versions"
    for rev, down in (("base0", None), ("deployed1", "base0"), ("late1", "base0")):
        revision_file(folder, rev, down)
    return folder


def _findings(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[tuple[str, str]]]:
    code = main(["lint", *args, "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    return code, sorted((Path(f["file"]).name, f["name"]) for f in document["findings"])


def test_the_applied_version_is_read_and_judged(
    database: str, versions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert applied_revisions(database) is None  # Alembic never ran here
    code, found = _findings(capsys, "versions", "--schema-from", database)
    assert (code, found) == (1, [("deployed1.py", "multiple-heads"), ("late1.py", "multiple-heads")])
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES ('deployed1')")
    assert applied_revisions(database) == ("deployed1",)
    code, found = _findings(capsys, "versions", "--schema-from", database)
    assert code == 1
    assert found == [
        ("deployed1.py", "multiple-heads"),
        ("late1.py", "multiple-heads"),
        ("late1.py", "revision-not-after-applied"),
    ]
    with psycopg.connect(database, autocommit=True) as conn:  # read only: nothing changed
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("deployed1",)]


def test_an_unreachable_database_is_one_line(
    versions: Path, capsys: pytest.CaptureFixture[str], pg_server_latest: PostgresServer
) -> None:
    with pg_server_latest.scratch_database() as dsn:
        pass  # dropped: the DSN names no database now
    code = main(["lint", "versions", "--schema-from", dsn])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("agentddl: ")
