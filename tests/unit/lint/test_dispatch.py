"""Rules declare the statement types they report on; the engine skips the others. A rule
that reports on a type it did not declare would lose findings: the fixtures, linted with
and without the skipping, must give the same findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from pglast import ast

from agentddl.checks.lint import engine
from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.rules import all_rules
from agentddl.checks.lint.types import Finding, Runner

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "lint").rglob("*.sql"))


def _lint_all(runner: Runner, version: int) -> list[Finding]:
    config = LintConfig(pg_version=version, runner=runner)
    return [f for path in FIXTURES for f in engine.lint(path.read_text(), path.name, config)]


TARGETS = [("psql", 11), ("psql", 16), ("alembic", 14), ("alembic", 18)]


@pytest.mark.parametrize(("runner", "version"), TARGETS)
def test_skipping_by_node_type_loses_no_finding(
    runner: Runner, version: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    dispatched = _lint_all(runner, version)
    monkeypatch.setattr(engine, "_applies", lambda rule, kind: True)
    assert dispatched == _lint_all(runner, version)
    assert len(dispatched) > 100


def test_node_types_are_statement_node_classes() -> None:
    for rule in all_rules():
        assert all(issubclass(kind, ast.Node) for kind in rule.node_types), rule.name
