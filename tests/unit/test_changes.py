"""checks.core.changes: the files a branch added or changed since a git ref, read from a
real git repository made for each test."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_repo import git as _git
from git_repo import new_repo

from agentddl.checks.core.changes import changed_since
from agentddl.generator.errors import AgentDDLError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two migrations on main, then a branch `work` checked out."""
    new_repo(tmp_path)
    versions = tmp_path / "db" / "versions"
    versions.mkdir(parents=True)
    (versions / "0001_a.sql").write_text("CREATE TABLE a (id int);\n")
    (versions / "0002_b.sql").write_text("CREATE TABLE b (id int);\n")
    (tmp_path / "other.sql").write_text("SELECT 1;\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    _git(tmp_path, "checkout", "-q", "-b", "work")
    return tmp_path


def test_added_modified_and_uncommitted_files_under_the_paths(repo: Path) -> None:
    versions = repo / "db" / "versions"
    (versions / "0003_c.sql").write_text("CREATE TABLE c (id int);\n")
    (versions / "0002_b.sql").write_text("CREATE TABLE b (id bigint);\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "c, b changed")
    (versions / "0004_d.sql").write_text("CREATE TABLE d (id int);\n")  # untracked
    (versions / "0001_a.sql").write_text("CREATE TABLE a (id bigint);\n")  # not staged
    (repo / "other.sql").write_text("SELECT 2;\n")  # changed, outside the paths
    found = changed_since("main", [versions])
    assert found == [versions / name for name in ("0001_a.sql", "0002_b.sql", "0003_c.sql", "0004_d.sql")]


def test_deleted_files_and_unchanged_ones_are_not_listed(repo: Path) -> None:
    versions = repo / "db" / "versions"
    _git(repo, "rm", "-q", str(versions / "0002_b.sql"))
    _git(repo, "commit", "-q", "-m", "drop b")
    assert changed_since("main", [versions]) == []
    assert changed_since("HEAD", [repo]) == []


def test_a_file_path_is_kept_as_named(repo: Path) -> None:
    versions = repo / "db" / "versions"
    (versions / "0002_b.sql").write_text("-- changed\n")
    assert changed_since("main", [versions / "0002_b.sql", versions / "0001_a.sql"]) == [
        versions / "0002_b.sql"
    ]


def test_a_bad_ref_is_one_line(repo: Path) -> None:
    with pytest.raises(AgentDDLError) as caught:
        changed_since("no-such-branch", [repo / "db"])
    assert (
        str(caught.value)
        == f"--changed-since: 'no-such-branch' names no commit in the git repository {repo.resolve()}"
    )
    with pytest.raises(AgentDDLError, match="expected a git ref"):
        changed_since("--output=x", [repo / "db"])


def test_outside_a_repository_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "x.sql").write_text("SELECT 1;\n")
    with pytest.raises(AgentDDLError) as caught:
        changed_since("main", [tmp_path / "x.sql"])
    assert str(caught.value) == f"--changed-since: {tmp_path.resolve()} is not in a git repository"
    assert "\n" not in str(caught.value)
