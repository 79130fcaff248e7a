"""Rule discovery shared by lint and verify: one module per rule, exactly one rule each.

Adding a module to a rules package is all it takes to register a rule: no list to edit.
Imports nothing but the standard library, so the database-free linter can use it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import TypeVar

RuleT = TypeVar("RuleT")


def rule_classes(package: ModuleType, base: type[RuleT]) -> list[type[RuleT]]:
    """The `base` subclass each public module of `package` defines, by module name.
    A module without exactly one is a bug (RuntimeError)."""
    found: list[type[RuleT]] = []
    for name in sorted({info.name for info in pkgutil.iter_modules(_search_path(package))}):
        if name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{name}")
        classes = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj)
            and issubclass(obj, base)
            and obj is not base
            and obj.__module__ == module.__name__
        ]
        if len(classes) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one Rule, not {len(classes)}")
        found.append(classes[0])
    return found


def _search_path(package: ModuleType) -> list[str]:
    # Under a strict editable install a package's folder is a link tree made at install
    # time; also search (and import from) the real source folder, so a newly added rule
    # module is found without re-installing. In a wheel both paths are the same folder.
    source = str(Path(package.__file__ or "").resolve().parent)
    if source not in package.__path__:
        package.__path__.append(source)
    return list(package.__path__)
