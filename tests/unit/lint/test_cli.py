"""`agentddl lint` end to end through the real CLI entry point."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main

UNSAFE = "CREATE INDEX idx_runs_status ON agent.runs (status);\n"
SAFE = (
    "SET lock_timeout = '2s';\n"
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_runs_status ON agent.runs (status);\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no config file above tmp_path is picked up
    return tmp_path


def _lint(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["lint", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_clean_file_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "ok.sql").write_text(SAFE)
    code, out, _ = _lint(["ok.sql"], capsys)
    assert code == 0
    assert "1 file linted: no findings." in out


def test_error_finding_exits_1_with_caret_and_docs(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text("SET lock_timeout = '2s';\n  " + UNSAFE)
    code, out, _ = _lint(["bad.sql"], capsys)
    assert code == 1
    assert "bad.sql:2:3: error ADL101 [require-concurrent-index-creation]" in out
    assert "2 |   CREATE INDEX" in out and "\n      ^\n" in out
    assert "fix: Use CREATE INDEX CONCURRENTLY" in out
    assert "docs: docs/rules/lint/require-concurrent-index-creation.md" in out


def test_json_shape(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    code, out, _ = _lint(["bad.sql", "--format", "json"], capsys)
    document = json.loads(out)
    assert code == 1 and document["tool"] == "lint" and document["files"] == 1
    assert document["summary"] == {"error": 1, "warning": 1, "info": 0}
    keys = {"code", "name", "severity", "file", "line", "column", "object", "message", "fix", "rule"}
    assert all(set(f) == keys and f["rule"] == f["name"] for f in document["findings"])  # rule: deprecated
    assert {f["code"] for f in document["findings"]} == {"ADL101", "ADL104"}


def test_github_annotations(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    _, out, _ = _lint(["bad.sql", "--format", "github"], capsys)
    assert out.startswith("::error file=bad.sql,line=1,col=1,title=ADL101 require-concurrent-index")


def test_sarif_structure(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    _, out, _ = _lint(["bad.sql", "--format", "sarif"], capsys)
    log = json.loads(out)
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    driver = log["runs"][0]["tool"]["driver"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert "ADL101" in rule_ids and len(rule_ids) == len(set(rule_ids))
    result = log["runs"][0]["results"][0]
    assert result["ruleId"] == "ADL101" and result["level"] == "error"
    assert rule_ids[result["ruleIndex"]] == "ADL101"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (1, 1)


def test_stdin_and_runner_flag(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = "CREATE INDEX CONCURRENTLY i ON agent.runs (a);\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(sql))
    assert _lint(["-"], capsys)[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(sql))
    code, out, _ = _lint(["-", "--runner", "alembic"], capsys)
    assert code == 1 and "<stdin>:1:1: error ADL103" in out


def test_pg_version_flag_changes_the_verdict(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "attach.sql").write_text(
        "CREATE TABLE agent.log_2027 (id bigint, at date);\n"
        "ALTER TABLE agent.log ATTACH PARTITION agent.log_2027"
        " FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');\n"
    )
    code, out, _ = _lint(["attach.sql", "--pg-version", "12"], capsys)
    assert code == 0 and "ADL104" not in out
    code, out, _ = _lint(["attach.sql", "--pg-version", "11"], capsys)
    assert code == 0 and "attach.sql:2:1: warning ADL104 [require-lock-timeout]" in out  # default: warning


def test_directories_recurse(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "db" / "sub").mkdir(parents=True)
    (project / "db" / "a.sql").write_text(SAFE)
    (project / "db" / "sub" / "b.sql").write_text(SAFE)
    (project / "db" / "notes.txt").write_text("not sql")
    code, out, _ = _lint(["db"], capsys)
    assert code == 0 and "2 files linted" in out


def test_syntax_error_is_a_finding(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.sql").write_text("SELECT 1;\nCREATE TABLEE x (a int);\n")
    code, out, _ = _lint(["broken.sql"], capsys)
    assert code == 1 and "broken.sql:2:8: error ADL000 [syntax-error]" in out


def test_missing_path_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _lint(["nope.sql"], capsys)
    assert code == 2 and "nope.sql: no such file or directory" in err


def test_bad_format_and_version_are_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "ok.sql").write_text(SAFE)
    assert _lint(["ok.sql", "--format", "xml"], capsys)[0] == 2
    code, _, err = _lint(["ok.sql", "--pg-version", "7"], capsys)
    assert code == 2 and "--pg-version" in err


def test_config_severity_and_unknown_key(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    (project / "pyproject.toml").write_text(
        "[tool.agentddl]\npg_version = 15\n[tool.agentddl.rules]\n"
        'require-lock-timeout = "off"\nrequire-concurrent-index-creation = "warning"\n'
    )
    code, out, _ = _lint(["bad.sql"], capsys)
    assert code == 0 and "ADL101" in out and "warning" in out and "ADL104" not in out
    (project / "pyproject.toml").write_text("[tool.agentddl]\npg_verison = 15\n")
    code, _, err = _lint(["bad.sql"], capsys)
    assert code == 2
    assert "pyproject.toml:2:1: tool.agentddl.pg_verison: unknown key" in err
    assert "did you mean 'pg_version'" in err


def test_config_flag_and_agentddl_toml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    (project / "agentddl.toml").write_text("[rules]\nrequire-concurent-index-creation = 'off'\n")
    code, _, err = _lint(["bad.sql"], capsys)
    assert code == 2 and "did you mean 'require-concurrent-index-creation'" in err
    (project / "strict.toml").write_text("lock_timeout = { max_ms = 1000 }\n")
    (project / "slow.sql").write_text("SET lock_timeout = '5s';\nALTER TABLE t ADD COLUMN a int;\n")
    code, out, _ = _lint(["slow.sql", "--config", "strict.toml"], capsys)
    assert code == 1 and "above the policy's 1000 ms" in out


def test_missing_argument_is_a_usage_error_not_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _lint([], capsys)
    assert code == 2 and "Missing argument" in err and "Traceback" not in err


def test_markdown_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bad.sql").write_text(UNSAFE)
    code, out, _ = _lint(["bad.sql", "--format", "markdown"], capsys)
    assert code == 1 and out.startswith("## agentddl lint\n")
    assert "| error | ADL101 [require-concurrent-index-creation](docs/rules/lint/" in out
    assert "**1 file linted: 1 error(s), 1 warning(s)/info.**" in out


def test_source_line_is_shown_verbatim(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = "CREATE INDEX i ON agent.runs (status); -- :warning: [bold]x[/bold]"
    (project / "bad.sql").write_text("SET lock_timeout = '2s';\n" + line + "\n")
    _, out, _ = _lint(["bad.sql"], capsys)
    assert f"2 | {line}\n" in out


def test_a_folder_without_migrations_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "empty" / "sub").mkdir(parents=True)
    (project / "empty" / "notes.txt").write_text("no sql here")
    (project / "other").mkdir()
    code, out, err = _lint(["empty", "other"], capsys)
    assert code == 2 and out == ""
    assert err == "agentddl: empty, other: no .sql file or Alembic revision found (searched recursively)\n"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("strict.toml", ["ok.sql", "--config", "strict.toml"]),
        ("pyproject.toml", ["ok.sql"]),
        ("bad.sql", ["bad.sql"]),
        ("db/bad.sql", ["db"]),
        ("0001_rev.py", ["0001_rev.py"]),
    ],
)
def test_a_file_that_is_not_utf8_is_one_line(
    name: str, args: list[str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "ok.sql").write_text(SAFE)
    (project / "db").mkdir()
    (project / name).write_bytes(b"-- first line\n-- caf\xe9\n")
    code, out, err = _lint(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith("agentddl: ") and err.count("\n") == 1  # a found config: its full path
    assert err.endswith(f"{name}:2: not UTF-8 text (byte 0xe9); save it as UTF-8\n")


def test_stdin_that_is_not_utf8_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"SELECT 1;\nSELECT '\xff';\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    code, _, err = _lint(["-"], capsys)
    assert code == 2 and err == "agentddl: <stdin>:2: not UTF-8 text (byte 0xff); save it as UTF-8\n"


def test_config_that_is_not_a_file_and_an_unreadable_alembic_ini(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "ok.sql").write_text(SAFE)
    (project / "conf").mkdir()
    code, _, err = _lint(["ok.sql", "--config", "conf"], capsys)
    assert code == 2 and err == "agentddl: conf: no such config file\n"
    (project / "env").mkdir()
    (project / "env" / "alembic.ini").write_text("script_location = .\n")  # no [alembic] header
    code, _, err = _lint(["env"], capsys)
    assert code == 2 and err.startswith("agentddl: env/alembic.ini: cannot read: ") and err.count("\n") == 1


def test_every_format_is_accepted(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "ok.sql").write_text(SAFE)
    for fmt in ("text", "json", "sarif", "github", "gitlab", "markdown"):
        code, _, err = _lint(["ok.sql", "-f", fmt], capsys)
        assert (code, err) == (0, ""), fmt


def test_help_names_the_default_target_version() -> None:
    from agentddl.checks.cli import lint as cli_lint
    from agentddl.checks.lint.config import DEFAULT_PG_VERSION

    assert cli_lint.DEFAULT_PG_VERSION == DEFAULT_PG_VERSION
    assert f"else {DEFAULT_PG_VERSION}." in cli_lint.EXAMPLES
