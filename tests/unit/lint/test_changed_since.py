"""`agentddl lint --changed-since REF`: only what the branch added or changed is linted
(committed since REF, or not committed yet), in a real git repository made per test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from git_repo import git as _git
from git_repo import new_repo

from agentddl.checks.cli.main import main

UNSAFE = "CREATE INDEX idx_{name} ON t ({name});\n"
REVISION = """\
from alembic import op

revision = "{rev}"
down_revision = {down!r}


def upgrade() -> None:
    op.create_index("ix_{rev}", "t", ["{rev}"])
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main holds a.sql and revision r1; the branch `work` is checked out."""
    monkeypatch.chdir(tmp_path)
    new_repo(tmp_path)
    (tmp_path / "sql").mkdir()
    (tmp_path / "sql" / "a.sql").write_text(UNSAFE.format(name="a"))
    (tmp_path / "versions").mkdir()
    (tmp_path / "versions" / "r1_first.py").write_text(REVISION.format(rev="r1", down=None))
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    _git(tmp_path, "checkout", "-q", "-b", "work")
    return tmp_path


def _lint(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object], str]:
    code = main(["lint", *args, "--format", "json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out else {}), captured.err


def _files(document: dict[str, object]) -> list[str]:
    findings = document["findings"]
    assert isinstance(findings, list)
    return sorted({f["file"] for f in findings})


def test_only_added_and_changed_files_are_linted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "sql" / "b.sql").write_text(UNSAFE.format(name="b"))
    (repo / "versions" / "r2_second.py").write_text(REVISION.format(rev="r2", down="r1"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "b and r2")
    (repo / "sql" / "c.sql").write_text(UNSAFE.format(name="c"))  # not committed
    code, whole, _ = _lint(["sql", "versions"], capsys)
    assert code == 1 and whole["files"] == 5
    code, document, err = _lint(["sql", "versions", "--changed-since", "main"], capsys)
    assert (code, err) == (1, "")
    assert document["files"] == 3
    assert _files(document) == ["sql/b.sql", "sql/c.sql", "versions/r2_second.py"]


def test_nothing_changed_is_a_clean_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, document, err = _lint(["sql", "versions", "--changed-since", "main"], capsys)
    assert (code, err) == (0, "")
    assert document["files"] == 0 and document["findings"] == []


def test_a_bad_ref_is_one_line_and_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, document, err = _lint(["sql", "--changed-since", "nope"], capsys)
    assert (code, document) == (2, {})
    assert (
        err == f"agentddl: --changed-since: 'nope' names no commit in the git repository {repo.resolve()}\n"
    )


def test_outside_git_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.sql").write_text(UNSAFE.format(name="a"))
    code, document, err = _lint(["a.sql", "--changed-since", "main"], capsys)
    assert (code, document) == (2, {})
    assert err == f"agentddl: --changed-since: {tmp_path.resolve()} is not in a git repository\n"
