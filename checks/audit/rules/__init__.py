"""Every audit rule (ADA), one module each; `all_rules()` discovers them.

The rules are the audit's vocabulary: each class holds a code, a name, a default
severity and its documentation; the judging lives where the facts are read (judge.py
for a path's plan, hygiene.py and workload.py for indexes, baseline.py for CI
regressions), and every finding is made with `SomeRule.finding(...)`.
"""

from __future__ import annotations

import sys
from functools import cache

from agentddl.checks.core.rules import Rule, rule_classes


class AuditRule(Rule):
    """Base of the audit's rules (family "audit", codes ADA...)."""

    family = "audit"


@cache
def all_rules() -> tuple[type[AuditRule], ...]:
    """Every audit rule class, sorted by code."""
    found = rule_classes(sys.modules[__name__], AuditRule)
    return tuple(sorted(found, key=lambda rule: rule.code))
