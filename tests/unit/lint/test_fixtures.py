"""The fixture runner: every tests/fixtures/lint/**/*.sql, expectations inline.

A fixture line ending in `-- error: [rule-name]` (or `-- warning: [a, b]`) expects
those findings on that line; every other finding is unexpected. The first lines may
carry `-- agentddl-fixture: pg-version=11 runner=alembic rules=a,b` (defaults:
pg-version=16, runner=psql, rules = the fixture folder's rule if the folder is named
after one, else every rule enabled by default). Framework rules (syntax-error,
unused-ignore, ignore-without-reason) always run; a fixture that does not parse fails
(unless it expects `syntax-error`).
Test ids are `path.sql:LINE` (one per line with an expected or actual finding) plus
`path.sql` for the file as a whole.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint
from agentddl.checks.lint.rules import rules_by_name
from agentddl.checks.lint.types import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lint"
_EXPECT = re.compile(r"--\s*(error|warning|info):\s*\[([^\]]+)\]")
_HEADER = re.compile(r"--\s*agentddl-fixture:(.*)")

Key = tuple[str, str]  # (severity, rule name)


@dataclass(frozen=True)
class Fixture:
    path: Path
    config: LintConfig
    rules: tuple[str, ...] | None
    expected: dict[int, Counter[Key]]

    @property
    def name(self) -> str:
        return self.path.relative_to(FIXTURES).as_posix()


def _header(path: Path, text: str) -> tuple[LintConfig, tuple[str, ...] | None]:
    settings: dict[str, str] = {}
    for line in text.splitlines()[:5]:
        match = _HEADER.search(line)
        if match:
            pairs = (item.partition("=") for item in match.group(1).split())
            settings.update((key, value) for key, _, value in pairs)
    version = int(settings.get("pg-version", "16"))
    config = LintConfig().with_overrides(version, settings.get("runner"))
    if "rules" in settings:
        return config, tuple(settings["rules"].split(","))
    folder = path.parent.name
    return config, (folder,) if folder in rules_by_name() else None


def _expected(text: str) -> dict[int, Counter[Key]]:
    expected: dict[int, Counter[Key]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for severity, names in _EXPECT.findall(line):
            keys = [(severity, name.strip()) for name in names.split(",") if name.strip()]
            expected.setdefault(number, Counter()).update(keys)
    return expected


@cache
def load(path: Path) -> Fixture:
    text = path.read_text(encoding="utf-8")
    config, rules = _header(path, text)
    return Fixture(path, config, rules, _expected(text))


@cache
def actual(path: Path) -> tuple[Finding, ...]:
    fixture = load(path)
    text = path.read_text(encoding="utf-8")
    return tuple(lint(text, fixture.name, fixture.config, only=fixture.rules))


def _by_line(findings: tuple[Finding, ...]) -> dict[int, Counter[Key]]:
    lines: dict[int, Counter[Key]] = {}
    for finding in findings:
        lines.setdefault(finding.line, Counter())[(finding.severity, finding.name)] += 1
    return lines


def _cases() -> list[object]:
    cases: list[object] = []
    for path in sorted(FIXTURES.rglob("*.sql")):
        fixture = load(path)
        cases.append(pytest.param(path, None, id=fixture.name))
        try:
            lines = set(fixture.expected) | set(_by_line(actual(path)))
        except Exception:  # a crashing rule fails the whole-file case below
            lines = set(fixture.expected)
        cases.extend(pytest.param(path, n, id=f"{fixture.name}:{n}") for n in sorted(lines))
    return cases


@pytest.mark.parametrize(("path", "line"), _cases())
def test_fixture(path: Path, line: int | None) -> None:
    fixture = load(path)
    findings = actual(path)
    if line is None:
        expects_error = any(n == "syntax-error" for c in fixture.expected.values() for _, n in c)
        unparsed = [f for f in findings if f.name == "syntax-error"]
        assert expects_error or not unparsed, f"{fixture.name} does not parse: {unparsed[0].message}"
        unknown = {name for c in fixture.expected.values() for _, name in c} - set(rules_by_name())
        assert not unknown, f"{fixture.name} expects unknown rules {sorted(unknown)}"
        return
    got = _by_line(findings).get(line, Counter())
    want = fixture.expected.get(line, Counter())
    messages = [f"{f.severity}: [{f.name}] {f.message}" for f in findings if f.line == line]
    assert got == want, f"{fixture.name}:{line}: expected {dict(want)}, got {messages}"


def test_fixtures_exist_for_every_rule() -> None:
    folders = {path.parent.name for path in FIXTURES.rglob("*.sql")}
    missing = set(rules_by_name()) - folders
    assert not missing, f"rules without fixtures in tests/fixtures/lint/<name>/: {sorted(missing)}"


def test_runner_reads_expectations_and_header(tmp_path: Path) -> None:
    text = (
        "-- agentddl-fixture: pg-version=11 runner=alembic rules=a,b\n"
        "SELECT 1;  -- error: [x, y]\n"
        "SELECT 2;\n"
        "SELECT 3;  -- warning: [z]  -- info: [x]\n"
    )
    path = tmp_path / "require-lock-timeout" / "case.sql"
    config, rules = _header(path, text)
    assert (config.pg_version, config.runner, rules) == (11, "alembic", ("a", "b"))
    assert _expected(text) == {
        2: Counter({("error", "x"): 1, ("error", "y"): 1}),
        4: Counter({("warning", "z"): 1, ("info", "x"): 1}),
    }
    assert _header(path, "SELECT 1;\n")[1] == ("require-lock-timeout",)
    assert _header(tmp_path / "misc" / "case.sql", "SELECT 1;\n")[1] is None
