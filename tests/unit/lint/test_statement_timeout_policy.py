"""require-statement-timeout follows its policy (`[tool.agentddl.options.
require-statement-timeout]`): a warning by default, an error when `required = true`
or when the timeout in force exceeds `max_ms`."""

from __future__ import annotations

from typing import Any

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

NO_TIMEOUT = "CREATE INDEX idx_runs_status ON agent.runs (status);\n"
LONG_TIMEOUT = "SET statement_timeout = '10min';\n" + NO_TIMEOUT
RULE = "require-statement-timeout"


def _severities(sql: str, policy: dict[str, Any] | None) -> list[str]:
    options = {} if policy is None else {RULE: policy}
    return [f.severity for f in lint(sql, "m.sql", LintConfig(options=options), only=[RULE])]


@pytest.mark.parametrize(
    ("sql", "policy", "expected"),
    [
        (NO_TIMEOUT, None, ["warning"]),
        (NO_TIMEOUT, {"required": True}, ["error"]),
        (NO_TIMEOUT, {"required": False}, []),
        (LONG_TIMEOUT, None, []),
        (LONG_TIMEOUT, {"max_ms": 60000}, ["error"]),
        (LONG_TIMEOUT, {"max_ms": 600000}, []),
        (LONG_TIMEOUT, {"required": False, "max_ms": 60000}, ["error"]),
    ],
)
def test_severity_follows_the_policy(sql: str, policy: dict[str, Any] | None, expected: list[str]) -> None:
    assert _severities(sql, policy) == expected
