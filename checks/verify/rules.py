"""Every verify rule, one module each under `generic/` (any schema) or `profile/`
(against a profile's model); adding a module registers it."""

from __future__ import annotations

from functools import cache

import agentddl.checks.verify.generic as generic
import agentddl.checks.verify.profile as profile
from agentddl.checks.core.rules import rule_classes
from agentddl.checks.verify.types import Group, Rule


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code."""
    found = [*rule_classes(generic, Rule), *rule_classes(profile, Rule)]
    return tuple(sorted(found, key=lambda rule: rule.code))


def rules_in_group(group: Group) -> tuple[type[Rule], ...]:
    return tuple(rule for rule in all_rules() if rule.group == group)


def rules_by_name() -> dict[str, type[Rule]]:
    return {rule.name: rule for rule in all_rules()}
