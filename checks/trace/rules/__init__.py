"""Every trace rule (ADT1xx), one module each; `all_rules()` discovers them.

A rule module defines exactly one `TraceRule` subclass; adding a module is all it takes
to register a rule.
"""

from __future__ import annotations

import sys
from functools import cache

from agentddl.checks.core.rules import rule_classes
from agentddl.checks.trace.observed import TraceRule


@cache
def all_rules() -> tuple[type[TraceRule], ...]:
    """Every rule class, sorted by code."""
    found = rule_classes(sys.modules[__name__], TraceRule)
    return tuple(sorted(found, key=lambda rule: rule.code))
