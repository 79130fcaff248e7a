"""require-statement-timeout is off by default; switched on under
`[tool.agentddl.rules]`, it follows its options (`[tool.agentddl.options.
require-statement-timeout]`): a missing timeout is flagged unless `required = false`,
a timeout above `max_ms` always."""

from __future__ import annotations

from typing import Any

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

NO_TIMEOUT = "CREATE INDEX idx_runs_status ON agent.runs (status);\n"
LONG_TIMEOUT = "SET statement_timeout = '10min';\n" + NO_TIMEOUT
RULE = "require-statement-timeout"


def _severities(sql: str, policy: dict[str, Any] | None, severity: str | None = "warning") -> list[str]:
    options = {} if policy is None else {RULE: policy}
    severities = {} if severity is None else {RULE: severity}
    config = LintConfig(options=options, severities=severities)
    return [f.severity for f in lint(sql, "m.sql", config, only=[RULE])]


def test_off_by_default() -> None:
    assert _severities(NO_TIMEOUT, None, severity=None) == []


@pytest.mark.parametrize(
    ("sql", "policy", "severity", "expected"),
    [
        (NO_TIMEOUT, None, "warning", ["warning"]),
        (NO_TIMEOUT, None, "error", ["error"]),
        (NO_TIMEOUT, {"required": False}, "warning", []),
        (LONG_TIMEOUT, None, "error", []),
        (LONG_TIMEOUT, {"max_ms": 60000}, "error", ["error"]),
        (LONG_TIMEOUT, {"max_ms": 600000}, "error", []),
        (LONG_TIMEOUT, {"required": False, "max_ms": 60000}, "warning", ["warning"]),
    ],
)
def test_switched_on_it_follows_the_policy(
    sql: str, policy: dict[str, Any] | None, severity: str, expected: list[str]
) -> None:
    assert _severities(sql, policy, severity) == expected
