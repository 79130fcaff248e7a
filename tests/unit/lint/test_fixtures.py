"""The fixture runner: every tests/fixtures/lint/**/*.sql and *.py, expectations inline.

A fixture line ending in `-- error: [rule-name]` (or `-- warning: [a, b]`, `-- info:
[a]`; `#` instead of `--` in a `.py` Alembic revision) expects those findings on that
line; every other finding is unexpected. The first lines may carry
`-- agentddl-fixture: pg-version=11 runner=alembic rules=a,b schema=FILE sizes=FILE` (defaults:
pg-version=16, runner=psql, rules = the fixture folder's rule if the folder is named
after one, else every rule enabled by default, no schema; a rule named either way that
is off by default is switched on). Framework rules
(syntax-error, unused-ignore, ignore-without-reason) always run; a fixture that does
not parse fails (unless it expects `syntax-error`).

Schema-aware fixtures: `schema=FILE` lints the fixture as `agentddl lint
--schema-from FILE` would, FILE relative to the fixture's folder: a schema SQL file
(conventionally `<name>.schema.sql` beside the fixture, or `../_schemas/<name>.schema.sql`
shared by several rules; `*.schema.sql` files are schemas, never fixtures themselves)
or a profile (`.yaml`); its own sizes are not used, as with `--schema-from`.
`sizes=FILE` gives table sizes as `--sizes-from FILE` does: a file with
`SELECT pg_catalog.pg_restore_relation_stats('schemaname', 's', 'relname', 't',
'relpages', 'N'::integer, 'reltuples', 'N'::real);` (as pg_dump --statistics writes
it), or a profile.
`.py` fixtures are Alembic revisions, linted through Alembic's offline mode.
Test ids are `path.sql:LINE` (one per line with an expected or actual finding) plus
`path.sql` for the file as a whole.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pytest

from agentddl.checks.lint import LintRequest, run
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import FRAMEWORK_RULES, lint
from agentddl.checks.lint.rules import rules_by_name
from agentddl.checks.lint.sizes import sizes_of, with_sizes
from agentddl.checks.lint.types import Finding
from agentddl.checks.pg.schema import SchemaFacts
from agentddl.checks.pg.schema_sources import facts_from_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lint"
_EXPECT = re.compile(r"(?:--|#)\s*(error|warning|info):\s*\[([^\]]+)\]")
_HEADER = re.compile(r"(?:--|#)\s*agentddl-fixture:(.*)")
SCHEMA_SUFFIX = ".schema.sql"

Key = tuple[str, str]  # (severity, rule name)


@dataclass(frozen=True)
class Fixture:
    path: Path
    config: LintConfig
    rules: tuple[str, ...] | None
    expected: dict[int, Counter[Key]]
    schema: SchemaFacts | None = None

    @property
    def name(self) -> str:
        return self.path.relative_to(FIXTURES).as_posix()


def _settings(text: str) -> dict[str, str]:
    settings: dict[str, str] = {}
    for line in text.splitlines()[:5]:
        match = _HEADER.search(line)
        if match:
            pairs = (item.partition("=") for item in match.group(1).split())
            settings.update((key, value) for key, _, value in pairs)
    return settings


def _header(path: Path, text: str) -> tuple[LintConfig, tuple[str, ...] | None]:
    settings = _settings(text)
    version = int(settings.get("pg-version", "16"))
    config = LintConfig().with_overrides(version, settings.get("runner"))
    if "rules" in settings:
        return _switched_on(config, settings["rules"].split(",")), tuple(settings["rules"].split(","))
    folder = path.parent.name
    if folder not in rules_by_name():
        return config, None
    return _switched_on(config, [folder]), (folder,)


def _switched_on(config: LintConfig, names: list[str]) -> LintConfig:
    """The config with the named rules that are off by default switched on (at their
    own severity): their fixtures name them, so they run."""
    known = rules_by_name()
    opt_in = {n: known[n].severity for n in names if n in known and not known[n].enabled_by_default}
    return replace(config, severities={**config.severities, **opt_in}) if opt_in else config


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
    settings = _settings(text)
    schema = facts_from_file(path.parent / settings["schema"]) if "schema" in settings else None
    sizes = sizes_of(facts_from_file(path.parent / settings["sizes"])) if "sizes" in settings else None
    return Fixture(path, config, rules, _expected(text), with_sizes(schema, sizes))


@cache
def actual(path: Path) -> tuple[Finding, ...]:
    fixture = load(path)
    if path.suffix == ".py":
        return _revision_findings(fixture)
    text = path.read_text(encoding="utf-8")
    return tuple(lint(text, fixture.name, fixture.config, only=fixture.rules, schema=fixture.schema))


def _revision_findings(fixture: Fixture) -> tuple[Finding, ...]:
    """An Alembic revision fixture, linted as `agentddl lint revision.py` does, keeping
    the findings of the fixture's rules (and the framework's)."""
    result = run(LintRequest([str(fixture.path)], config=fixture.config, schema=fixture.schema))
    wanted = None if fixture.rules is None else {*fixture.rules, *FRAMEWORK_RULES}
    return tuple(f for f in result.findings if wanted is None or f.name in wanted)


def fixture_files() -> list[Path]:
    """Every fixture: .sql files (not schemas) and .py revisions."""
    found = [p for p in FIXTURES.rglob("*.sql") if not p.name.endswith(SCHEMA_SUFFIX)]
    return sorted([*found, *FIXTURES.rglob("*.py")])


def _by_line(findings: tuple[Finding, ...]) -> dict[int, Counter[Key]]:
    lines: dict[int, Counter[Key]] = {}
    for finding in findings:
        lines.setdefault(finding.line, Counter())[(finding.severity, finding.name)] += 1
    return lines


def _cases() -> list[object]:
    cases: list[object] = []
    for path in fixture_files():
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
    folders = {path.parent.name for path in fixture_files()}
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
