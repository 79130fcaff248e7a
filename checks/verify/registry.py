"""Every verify rule, one module each under `generic/` (any schema) or `profile/`
(against a profile's model); adding a module registers it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from pathlib import Path
from types import ModuleType

from agentddl.checks.verify import generic, profile
from agentddl.checks.verify.types import Group, Rule


def _search_path(package: ModuleType) -> list[str]:
    # Strict editable installs link files listed at install time; also search the real
    # source folder so a new rule module is found without re-installing.
    source = str(Path(package.__file__ or "").resolve().parent)
    return [*package.__path__, *([source] if source not in package.__path__ else [])]


def _rules_in(package: ModuleType) -> list[type[Rule]]:
    found: list[type[Rule]] = []
    for name in sorted({info.name for info in pkgutil.iter_modules(_search_path(package))}):
        if name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{name}")
        classes = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, Rule) and obj.__module__ == module.__name__
        ]
        if len(classes) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one Rule, not {len(classes)}")
        found.append(classes[0])
    return found


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code."""
    return tuple(sorted([*_rules_in(generic), *_rules_in(profile)], key=lambda rule: rule.code))


def rules_in_group(group: Group) -> tuple[type[Rule], ...]:
    return tuple(rule for rule in all_rules() if rule.group == group)


def rules_by_name() -> dict[str, type[Rule]]:
    return {rule.name: rule for rule in all_rules()}
