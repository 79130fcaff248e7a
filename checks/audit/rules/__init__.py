"""Every audit rule (ADA), one module each; `all_rules()` discovers them.

A rule module holds its code, name, severity, documentation and its judgement. Each
rule is also of the kind of facts it judges, a base the module gathering those facts
defines (judge.py: one path's plan; planning.py: a path that could not be planned;
generic.py: its generic plan; fkactions.py: a foreign key's action a path fires;
hygiene.py: the indexes against the workload; workload.py: an index dropped and the
paths re-planned; baseline.py: a path against its stored plan). The gathering module
asks every discovered rule of its kind (`rules_of`), so adding a module is all it takes
to register a rule.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import TypeVar

from agentddl.checks.core.rules import Rule, rule_classes


class AuditRule(Rule):
    """Base of the audit's rules (family "audit", codes ADA...)."""

    family = "audit"


KindT = TypeVar("KindT", bound=AuditRule)


@cache
def all_rules() -> tuple[type[AuditRule], ...]:
    """Every audit rule class, sorted by code."""
    found = rule_classes(sys.modules[__name__], AuditRule)
    return tuple(sorted(found, key=lambda rule: rule.code))


def rules_of(kind: type[KindT]) -> list[KindT]:
    """One instance of every rule of `kind` (a base class of the facts it judges), by code."""
    return [rule() for rule in all_rules() if issubclass(rule, kind)]
