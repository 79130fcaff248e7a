"""--format gitlab: a GitLab Code Quality report (a JSON array of issues with GitLab's
required keys), fingerprints stable from run to run and unique within a report."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report, render

GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def _issues(report: Report) -> list[dict[str, object]]:
    out = io.StringIO()
    render(report, "gitlab", out)
    issues = json.loads(out.getvalue())
    assert isinstance(issues, list)
    return issues


def test_issues_carry_gitlabs_required_keys() -> None:
    at_line = Finding("ADL101", "x-rule", "error", "Locks t.", "Do y.", file="m/1.sql", line=4, column=3)
    on_object = Finding("ADV101", "y-rule", "warning", "No key.", "Add one.", object="public.notes")
    bare = Finding("ADP101", "z-rule", "info", "Held.", "Nothing.")
    issues = _issues(Report("lint", [on_object, at_line, bare]))
    assert [i["location"] for i in issues] == [
        {"path": "public.notes", "lines": {"begin": 1}},
        {"path": "lint", "lines": {"begin": 1}},
        {"path": "m/1.sql", "lines": {"begin": 4}},
    ]
    assert [i["severity"] for i in issues] == ["major", "info", "critical"]
    assert {i["severity"] for i in issues} <= GITLAB_SEVERITIES
    assert issues[2]["check_name"] == "ADL101"
    assert issues[2]["description"] == "ADL101 x-rule: Locks t. fix: Do y."
    assert all(set(i) == {"description", "check_name", "fingerprint", "severity", "location"} for i in issues)


def test_fingerprints_are_stable_and_unique() -> None:
    one = Finding("ADL101", "x", "error", "Locks t.", "Do y.", file="a.sql", line=1, column=1)
    same_again = Finding("ADL101", "x", "error", "Locks t.", "Do y.", file="a.sql", line=1, column=9)
    moved = Finding("ADL101", "x", "error", "Locks t.", "Do y.", file="a.sql", line=2, column=1)
    first = [i["fingerprint"] for i in _issues(Report("lint", [one, same_again, moved]))]
    second = [i["fingerprint"] for i in _issues(Report("lint", [moved, one, same_again]))]
    assert first == second and len(set(first)) == 3
    assert _issues(Report("lint", [one]))[0]["fingerprint"] == first[0]


def test_no_findings_is_an_empty_array() -> None:
    assert _issues(Report("verify", [])) == []


def test_lint_prints_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.sql").write_text("CREATE INDEX i ON t (a);\n")
    code = main(["lint", "m.sql", "--format", "gitlab"])
    issues = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("ADL101", "critical", {"path": "m.sql", "lines": {"begin": 1}}),  # the index build
        ("ADL104", "major", {"path": "m.sql", "lines": {"begin": 1}}),  # no lock_timeout
    ]
