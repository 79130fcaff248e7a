"""Every lint rule, one module each; `all_rules()` discovers them.

A rule module defines exactly one `Rule` subclass. Adding a module is all it takes
to register a rule: no list to edit.
"""

from __future__ import annotations

import sys
from functools import cache

from agentddl.checks.core.rules import rule_classes
from agentddl.checks.lint.types import Rule


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code. A module without exactly one rule is a bug."""
    found = rule_classes(sys.modules[__name__], Rule)
    return tuple(sorted(found, key=lambda rule: rule.code))


def rules_by_name() -> dict[str, type[Rule]]:
    """Rule classes keyed by their kebab-case name (as used in ignore comments and config)."""
    return {rule.name: rule for rule in all_rules()}
