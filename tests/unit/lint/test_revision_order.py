"""The order of Alembic revisions linted together: multiple heads, and revisions out of
order with the versions a database is at (handed in as plain data, as the command line
does after reading alembic_version)."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic_revision import revision_file as _revision
from git_repo import git as _git
from git_repo import new_repo

from agentddl.checks.cli.main import main
from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig


def _order(
    folder: Path, applied: tuple[str, ...] | None = None, since: str | None = None
) -> list[tuple[str, str, int]]:
    request = LintRequest([str(folder)], config=LintConfig(), applied_revisions=applied, changed_since=since)
    return sorted(
        (Path(f.file or "").name, f.name, f.line or 0)
        for f in run(request).findings
        if f.name in ("multiple-heads", "revision-not-after-applied")
    )


def test_two_heads_are_an_error_on_each_naming_both(tmp_path: Path) -> None:
    _revision(tmp_path, "base0", None)
    _revision(tmp_path, "left1", "base0")
    _revision(tmp_path, "right1", "base0")
    findings = run(LintRequest([str(tmp_path)], config=LintConfig())).findings
    heads = [f for f in findings if f.name == "multiple-heads"]
    assert [(Path(f.file or "").name, f.line, f.severity) for f in heads] == [
        ("left1.py", 3, "error"),
        ("right1.py", 3, "error"),
    ]
    assert "2 heads (left1, right1)" in heads[0].message
    assert "alembic merge -m 'merge heads' left1 right1" in heads[0].fix


def test_a_merge_revision_or_branch_labels_make_one_line(tmp_path: Path) -> None:
    _revision(tmp_path / "merged", "base0", None)
    _revision(tmp_path / "merged", "left1", "base0")
    _revision(tmp_path / "merged", "right1", "base0")
    _revision(tmp_path / "merged", "merge2", ("left1", "right1"))
    assert _order(tmp_path / "merged") == []
    _revision(tmp_path / "labelled", "app0", None, ("app",))
    _revision(tmp_path / "labelled", "audit0", None, ("audit",))
    assert _order(tmp_path / "labelled") == []


def test_a_head_that_does_not_descend_from_the_applied_version(tmp_path: Path) -> None:
    _revision(tmp_path, "base0", None)
    _revision(tmp_path, "deployed1", "base0")
    _revision(tmp_path, "late1", "base0")  # written against base0, merged after deployed1 ran
    assert _order(tmp_path, applied=("deployed1",)) == [
        ("deployed1.py", "multiple-heads", 3),
        ("late1.py", "multiple-heads", 3),
        ("late1.py", "revision-not-after-applied", 3),
    ]
    assert _order(tmp_path, applied=("base0",)) == [  # both descend from base0: only the heads
        ("deployed1.py", "multiple-heads", 3),
        ("late1.py", "multiple-heads", 3),
    ]


def test_an_applied_version_no_revision_is(tmp_path: Path) -> None:
    _revision(tmp_path, "base0", None)
    _revision(tmp_path, "next1", "base0")
    assert _order(tmp_path, applied=("next1",)) == []
    assert _order(tmp_path, applied=("elsewhere9",)) == [("next1.py", "revision-not-after-applied", 3)]
    finding = next(
        f
        for f in run(
            LintRequest([str(tmp_path)], config=LintConfig(), applied_revisions=("elsewhere9",))
        ).findings
        if f.name == "revision-not-after-applied"
    )
    assert "elsewhere9" in finding.message and "Can't locate revision" in finding.message


def test_a_revision_linted_alone_is_not_judged_against_the_database(tmp_path: Path) -> None:
    alone = _revision(tmp_path, "next1", "base0")  # its parent is not among the files
    request = LintRequest([str(alone)], config=LintConfig(), applied_revisions=("elsewhere9",))
    assert [f.name for f in run(request).findings] == []


def test_a_changed_revision_below_the_applied_version_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    new_repo(tmp_path)
    versions = tmp_path / "versions"
    _revision(versions, "base0", None)
    _revision(versions, "deployed1", "base0")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "deployed")
    _revision(versions, "inserted1", "base0")  # new on the branch, then slotted below deployed1
    _revision(versions, "deployed1", "inserted1")
    _revision(versions, "new2", "deployed1")
    found = _order(versions, applied=("deployed1",), since="main")
    assert found == [
        ("deployed1.py", "revision-not-after-applied", 3),  # edited after it was applied
        ("inserted1.py", "revision-not-after-applied", 3),  # below the applied version
    ]
    assert _order(versions, since="main") == []  # no database to compare with


def test_ignored_in_the_revision(tmp_path: Path) -> None:
    _revision(tmp_path, "base0", None)
    _revision(tmp_path, "left1", "base0")
    right = _revision(tmp_path, "right1", "base0")
    right.write_text(
        right.read_text().replace(
            'revision = "right1"',
            'revision = "right1"  # agentddl: ignore[multiple-heads] merged in the next release',
        )
    )
    assert _order(tmp_path) == [("left1.py", "multiple-heads", 3)]


def test_the_command_line_exits_1_on_two_heads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _revision(tmp_path / "versions", "base0", None)
    _revision(tmp_path / "versions", "left1", "base0")
    _revision(tmp_path / "versions", "right1", "base0")
    assert main(["lint", "versions"]) == 1
    out = capsys.readouterr().out
    assert "versions/left1.py:3:1: error ADL004 [multiple-heads]" in out


def test_revision_files_named_one_by_one_are_a_selection_not_a_graph(tmp_path: Path) -> None:
    files = [
        _revision(tmp_path, "base0", None),
        _revision(tmp_path, "left1", "base0"),
        _revision(tmp_path, "right1", "base0"),
    ]
    request = LintRequest([str(f) for f in files], config=LintConfig(), applied_revisions=("elsewhere9",))
    assert [f.name for f in run(request).findings] == []
    assert _order(tmp_path) == [("left1.py", "multiple-heads", 3), ("right1.py", "multiple-heads", 3)]
