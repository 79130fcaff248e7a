"""The linter as a library: run(LintRequest) -> LintResult, and the core Report it makes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentddl.checks.core.report import render
from agentddl.checks.lint import LintRequest, LintResult, run
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.rules import all_rules

UNSAFE = "CREATE INDEX idx_runs_status ON agent.runs (status);\n"
SAFE = (
    "SET lock_timeout = '2s';\n"
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_runs_status ON agent.runs (status);\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_result_and_report(project: Path) -> None:
    (project / "a.sql").write_text(UNSAFE)
    (project / "b.sql").write_text(SAFE)
    result = run(LintRequest(["a.sql", "b.sql"]))
    assert isinstance(result, LintResult) and result.files == 2 and result.exit_code == 1
    assert [(f.file, f.code) for f in result.findings] == [("a.sql", "ADL101"), ("a.sql", "ADL104")]
    report = result.report()
    assert report.tool == "lint" and dict(report.about) == {"files": 2}
    assert report.sources == {"a.sql": UNSAFE, "b.sql": SAFE}
    assert report.summary_line() == "2 files linted: 1 error(s), 1 warning(s)/info."
    assert tuple(report.rules) == all_rules() and report.exit_code == 1
    out = io.StringIO()
    render(report, "json", out)
    assert list(json.loads(out.getvalue())) == ["tool", "schema_version", "files", "findings", "summary"]


def test_settings_come_from_the_config_file_then_the_request(project: Path) -> None:
    (project / "agentddl.toml").write_text("pg_version = 11\n[rules]\nrequire-lock-timeout = 'off'\n")
    (project / "a.sql").write_text(UNSAFE)
    assert LintRequest(["a.sql"]).settings().pg_version == 11
    assert LintRequest(["a.sql"], pg_version=14, runner="alembic").settings().runner == "alembic"
    assert [f.code for f in run(LintRequest(["a.sql"])).findings] == ["ADL101"]
    given = LintRequest(["a.sql"], config=LintConfig())  # a given config: no file is read
    assert [f.code for f in run(given).findings] == ["ADL101", "ADL104"]


def test_stdin_is_linted_as_stdin(project: Path) -> None:
    result = run(LintRequest(["-"], config=LintConfig(), stdin=io.StringIO(UNSAFE)))
    assert {f.file for f in result.findings} == {"<stdin>"}
    assert result.report().sources == {"<stdin>": UNSAFE}


def test_the_library_needs_no_database_driver(project: Path) -> None:
    (project / "a.sql").write_text(UNSAFE)
    probe = (
        "import io, sys\n"
        "from agentddl.checks.core.report import render\n"
        "from agentddl.checks.lint import LintRequest, run\n"
        "for fmt in ('text', 'json', 'sarif', 'github', 'markdown'):\n"
        "    render(run(LintRequest(['a.sql'])).report(), fmt, io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m == 'psycopg' or m.startswith('agentddl.checks.db')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "[]", result.stderr
