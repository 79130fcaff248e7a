"""[[tool.agentddl.lint.paths]]: settings per glob of files, the most specific entry
winning, command-line flags above them all, and a bad entry one line at its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.lint.config import load_config
from agentddl.checks.lint.rules import rules_by_name

PYPROJECT = """\
[tool.agentddl]
pg_version = 16

[tool.agentddl.rules]
require-lock-timeout = "error"

[[tool.agentddl.lint.paths]]
path = "db/legacy/special/*.sql"
rules = { require-lock-timeout = "info" }

[[tool.agentddl.lint.paths]]
path = "db/legacy"
pg_version = 11
rules = { require-lock-timeout = "off", mixed-transaction-modes = "error" }
"""
INDEX = "CREATE INDEX i ON t (a);\n"
MIXED = "ALTER TABLE t ADD COLUMN b int;\nCREATE INDEX CONCURRENTLY IF NOT EXISTS i ON t (b);\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    for folder in ("db/new", "db/legacy/old", "db/legacy/special"):
        (tmp_path / folder).mkdir(parents=True)
    return tmp_path


def _by_file(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, list[tuple[str, str]]]]:
    code = main(["lint", *args, "--format", "json"])
    found: dict[str, list[tuple[str, str]]] = {}
    for finding in json.loads(capsys.readouterr().out)["findings"]:
        found.setdefault(finding["file"], []).append((finding["name"], finding["severity"]))
    return code, found


def test_the_most_specific_entry_wins(project: Path) -> None:
    config = load_config(project / "pyproject.toml", rules_by_name())
    new, old, special = (project / p / "m.sql" for p in ("db/new", "db/legacy/old", "db/legacy/special"))
    assert config.for_file(new) is config
    assert (config.for_file(old).pg_version, config.for_file(old).severities["require-lock-timeout"]) == (
        11,
        "off",
    )
    # db/legacy/special/*.sql is more specific than db/legacy, though it comes first
    assert config.for_file(special).severities["require-lock-timeout"] == "info"
    assert config.for_file(special).pg_version == 16
    assert config.for_file(project / "db" / "legacy" / "special" / "x.txt") == config.for_file(old)


def test_each_file_is_linted_with_its_settings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for folder in ("db/new", "db/legacy/old", "db/legacy/special"):
        (project / folder / "idx.sql").write_text(INDEX)
    (project / "db/legacy/old/mixed.sql").write_text(MIXED)
    (project / "db/new/mixed.sql").write_text(MIXED)
    code, found = _by_file(capsys, "db")
    assert code == 1
    lock = ("require-lock-timeout",)
    assert [f for f in found["db/new/idx.sql"] if f[0] in lock] == [("require-lock-timeout", "error")]
    assert [f for f in found["db/legacy/special/idx.sql"] if f[0] in lock] == [
        ("require-lock-timeout", "info")
    ]
    assert [f for f in found["db/legacy/old/idx.sql"] if f[0] in lock] == []
    assert ("mixed-transaction-modes", "error") in found["db/legacy/old/mixed.sql"]
    assert all(name != "mixed-transaction-modes" for name, _ in found.get("db/new/mixed.sql", []))


def test_command_line_flags_win_over_entries(project: Path) -> None:
    (project / "db/legacy/old/reindex.sql").write_text("REINDEX INDEX CONCURRENTLY i;\n")
    config = load_config(project / "pyproject.toml", rules_by_name()).with_overrides(14, None)
    assert config.for_file(project / "db/legacy/old/reindex.sql").pg_version == 14


def test_an_alembic_revision_gets_its_entry(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    revision = 'from alembic import op\n\nrevision = "r1"\ndown_revision = None\n\n\ndef upgrade() -> None:\n'
    (project / "db/legacy/old/r1.py").write_text(revision + '    op.create_index("i", "t", ["a"])\n')
    code, found = _by_file(capsys, "db/legacy/old/r1.py")
    assert code == 1 and all(name != "require-lock-timeout" for name, _ in found["db/legacy/old/r1.py"])


@pytest.mark.parametrize(
    ("entry", "line", "error"),
    [
        ('path = "db/x"\nrunnr = "psql"', 13, "lint.paths[1].runnr: unknown key (did you mean 'runner'?)"),
        ('path = "db/x"\nprofile = "p.yaml"', 13, "lint.paths[1].profile: unknown key"),
        ('path = "db/x"\nrunner = "flyway"', 13, "lint.paths[1].runner: must be 'psql' or 'alembic'"),
        (
            'path = "db/x"\nrules = { no-such-rule = "off" }',
            13,
            "lint.paths[1].rules.no-such-rule: unknown key",
        ),
        ("pg_version = 12", 11, "lint.paths[1].path: must be a glob"),
    ],
)
def test_a_bad_entry_is_one_line_at_its_place(
    project: Path, capsys: pytest.CaptureFixture[str], entry: str, line: int, error: str
) -> None:
    text = PYPROJECT.split('[[tool.agentddl.lint.paths]]\npath = "db/legacy"')[0]
    (project / "pyproject.toml").write_text(text + f"[[tool.agentddl.lint.paths]]\n{entry}\n")
    (project / "db/new/m.sql").write_text(INDEX)
    assert main(["lint", "db/new/m.sql"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agentddl: {project / 'pyproject.toml'}:{line}:") and err.count("\n") == 1
    assert f"tool.agentddl.{error}" in err
