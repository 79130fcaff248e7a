"""Every lint rule, one module each; `all_rules()` discovers them.

A rule module defines exactly one `Rule` subclass. Adding a module is all it takes
to register a rule: no list to edit.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from pathlib import Path

from agentddl.checks.lint.types import Rule

# Under a strict editable install this package's folder is a link tree made at install
# time; also search the real source folder so a newly added rule module is found
# without re-installing. In a wheel both paths are the same folder.
_source_dir = str(Path(__file__).resolve().parent)
if _source_dir not in __path__:
    __path__.append(_source_dir)


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code. A module without exactly one rule is a bug."""
    found: list[type[Rule]] = []
    names = sorted({info.name for info in pkgutil.iter_modules(__path__)})
    for module_name in names:
        if module_name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_name}")
        classes = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj)
            and issubclass(obj, Rule)
            and obj is not Rule
            and obj.__module__ == module.__name__
        ]
        if len(classes) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one Rule, not {len(classes)}")
        found.append(classes[0])
    return tuple(sorted(found, key=lambda rule: rule.code))


def rules_by_name() -> dict[str, type[Rule]]:
    """Rule classes keyed by their kebab-case name (as used in ignore comments and config)."""
    return {rule.name: rule for rule in all_rules()}
