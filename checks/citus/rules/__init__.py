"""The Citus rules (`agentddl verify --citus`), one module each; adding a module registers it."""

from __future__ import annotations

import sys
from functools import cache

from agentddl.checks.citus.types import Rule
from agentddl.checks.core.rules import rule_classes


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code."""
    return tuple(sorted(rule_classes(sys.modules[__name__], Rule), key=lambda rule: rule.code))
