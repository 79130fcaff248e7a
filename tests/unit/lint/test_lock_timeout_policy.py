"""require-lock-timeout's severity follows the lock_timeout policy: a warning by
default, an error when `lock_timeout = { required = true }` or a max_ms is exceeded."""

from __future__ import annotations

from typing import Any

import pytest

from agentddl.checks.lint.config import LintConfig
from agentddl.checks.lint.engine import lint

NO_TIMEOUT = "ALTER TABLE agent.runs ADD COLUMN trace_id text;\n"
LONG_TIMEOUT = "SET lock_timeout = '30s';\n" + NO_TIMEOUT


def _severities(
    sql: str, policy: dict[str, Any] | None, severities: dict[str, str] | None = None
) -> list[str]:
    options = {} if policy is None else {"lock_timeout": policy}
    config = LintConfig(options=options, severities=severities or {})
    return [f.severity for f in lint(sql, "m.sql", config, only=["require-lock-timeout"])]


@pytest.mark.parametrize(
    ("sql", "policy", "expected"),
    [
        (NO_TIMEOUT, None, ["warning"]),
        (NO_TIMEOUT, {"max_ms": 5000}, ["warning"]),
        (NO_TIMEOUT, {"required": True}, ["error"]),
        (NO_TIMEOUT, {"required": False}, []),
        (LONG_TIMEOUT, None, []),
        (LONG_TIMEOUT, {"max_ms": 5000}, ["error"]),
        (LONG_TIMEOUT, {"required": False, "max_ms": 5000}, ["error"]),
    ],
)
def test_severity_follows_the_policy(sql: str, policy: dict[str, Any] | None, expected: list[str]) -> None:
    assert _severities(sql, policy) == expected


def test_a_configured_severity_wins() -> None:
    assert _severities(NO_TIMEOUT, None, {"require-lock-timeout": "error"}) == ["error"]
    assert _severities(NO_TIMEOUT, {"required": True}, {"require-lock-timeout": "info"}) == ["info"]
