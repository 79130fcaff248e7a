"""Every verify rule, one module each under `generic/` (any schema) or `profile/`
(against a profile's model); adding a module registers it. The index rules (ADV101-ADV104)
live in the shared `catalog_rules` layer, because audit runs them too."""

from __future__ import annotations

from functools import cache

import agentddl.checks.verify.generic as generic
import agentddl.checks.verify.profile as profile
from agentddl.checks.catalog_rules.indexes import INDEX_RULES
from agentddl.checks.catalog_rules.types import Group, Rule
from agentddl.checks.core.rules import rule_classes


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code."""
    found = [*rule_classes(generic, Rule), *rule_classes(profile, Rule), *INDEX_RULES]
    return tuple(sorted(found, key=lambda rule: rule.code))


def rules_in_group(group: Group) -> tuple[type[Rule], ...]:
    return tuple(rule for rule in all_rules() if rule.group == group)


def rules_by_name() -> dict[str, type[Rule]]:
    return {rule.name: rule for rule in all_rules()}
