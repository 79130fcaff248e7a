"""The engine: locations, severities and a crashing rule that must not stop the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pglast import ast

from agentddl.checks.lint import engine
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.rules import all_rules
from agentddl.checks.lint.types import Context, Rule, Statement, Violation


class PointsAtWhere(Rule):
    """Reports every UPDATE at its WHERE keyword (a narrower location)."""

    code = "ADL990"
    name = "points-at-where"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if isinstance(statement.node, ast.UpdateStmt):
            yield Violation("m", "h", location=statement.sql.index("WHERE"))


class Crashes(Rule):
    """Raises on every DELETE."""

    code = "ADL991"
    name = "crashes"
    severity = "warning"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if isinstance(statement.node, ast.DeleteStmt):
            raise KeyError("boom")
        return iter(())


class InfoOnInsert(Rule):
    """Reports every INSERT at info severity, though the rule's default is error."""

    code = "ADL992"
    name = "info-on-insert"

    def check(self, statement: Statement, context: Context) -> Iterator[Violation]:
        if isinstance(statement.node, ast.InsertStmt):
            yield Violation("m", "h", severity="info")


@pytest.fixture(autouse=True)
def extra_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = (*all_rules(), PointsAtWhere, Crashes, InfoOnInsert)
    monkeypatch.setattr(engine, "all_rules", lambda: rules)


def _lint(sql: str, **severities: str) -> list[tuple[int, int, str, str]]:
    config = LintConfig(severities={k.replace("_", "-"): v for k, v in severities.items()})
    findings = engine.lint(sql, "m.sql", config, only=["points-at-where", "crashes", "info-on-insert"])
    return [(f.line, f.column, f.name, f.severity) for f in findings]


def test_violation_location_is_mapped_inside_the_statement() -> None:
    sql = "SELECT 1;\n  UPDATE t\n  SET a = 1\n  WHERE id = 2;"
    assert _lint(sql) == [(4, 3, "points-at-where", "error")]


def test_config_severity_and_off() -> None:
    assert _lint("UPDATE t SET a = 1 WHERE b;", points_at_where="info")[0][3] == "info"
    assert _lint("UPDATE t SET a = 1 WHERE b;", points_at_where="off") == []


def test_a_crashing_rule_becomes_a_finding() -> None:
    config = LintConfig()
    findings = engine.lint(
        "DELETE FROM t;\nUPDATE t SET a = 1 WHERE b;", "m.sql", config, only=["points-at-where", "crashes"]
    )
    assert [(f.line, f.name) for f in findings] == [(1, "crashes"), (2, "points-at-where")]
    assert "KeyError" in findings[0].message and findings[0].severity == "warning"


def test_violation_severity_overrides_the_rule_default_not_the_config() -> None:
    assert _lint("INSERT INTO t VALUES (1);") == [(1, 1, "info-on-insert", "info")]
    assert _lint("INSERT INTO t VALUES (1);", info_on_insert="error")[0][3] == "error"
