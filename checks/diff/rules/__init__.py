"""Every diff rule (ADC1xx), one module each; `all_rules()` discovers them.

A rule module defines exactly one `DiffRule` subclass; adding a module is all it takes
to register a rule.
"""

from __future__ import annotations

import sys
from functools import cache

from agentddl.checks.core.rules import rule_classes
from agentddl.checks.diff.types import DiffRule


@cache
def all_rules() -> tuple[type[DiffRule], ...]:
    """Every rule class, sorted by code."""
    found = rule_classes(sys.modules[__name__], DiffRule)
    return tuple(sorted(found, key=lambda rule: rule.code))
