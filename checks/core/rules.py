"""One rule model for every family: metadata, documentation sections and discovery.

Every rule of every family (lint ADL, verify ADV, trace ADT, audit ADA, prove ADP, diff ADC, citus ADS) is a
class with a stable `code`, a kebab-case `name`, a default `severity`, its `family`, and
a docstring with the sections of `required_sections(rule)`: the docs site's rule pages
are generated from it (`python -m agentddl.checks.docs`), and a test fails when one lacks
a section. `Rule.finding(...)` is the one way a rule's finding is made.

Discovery: a family's rules package holds one module per rule; `rule_classes` finds
them, so adding a module is all it takes to register a rule. Imports nothing but the
standard library and the findings type, so the database-free linter can use it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import ClassVar, Literal, TypeVar

from agentddl.checks.core.findings import Finding, Severity

Family = Literal["lint", "verify", "trace", "audit", "prove", "diff", "citus"]
CODE_PREFIX: dict[Family, str] = {
    "lint": "ADL",
    "verify": "ADV",
    "trace": "ADT",
    "audit": "ADA",
    "prove": "ADP",
    "diff": "ADC",
    "citus": "ADS",
}
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")
ALEMBIC_SECTION = "In an Alembic migration"  # lint rules only: how the fix looks in a revision
DOCS_ROOT = "docs/rules"


class Rule:
    """Base of every rule class. Subclasses set the class attributes; their docstring is
    the rule's documentation."""

    code: ClassVar[str]  # e.g. "ADL101"; stable forever once released
    name: ClassVar[str]  # e.g. "require-concurrent-index-creation"
    severity: ClassVar[Severity] = "error"
    family: ClassVar[Family]

    @classmethod
    def finding(
        cls,
        message: str,
        fix: str,
        *,
        severity: Severity | None = None,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        object: str | None = None,
    ) -> Finding:
        """A finding of this rule (at its default severity unless `severity` is given)."""
        return Finding(
            cls.code, cls.name, severity or cls.severity, message, fix, file, line, column, object
        )


def required_sections(rule: type[Rule]) -> tuple[str, ...]:
    if rule.family == "lint":
        return (*SECTIONS[:4], ALEMBIC_SECTION, SECTIONS[4])
    return SECTIONS


def documentation(rule: type[Rule]) -> str:
    return inspect.cleandoc(rule.__doc__ or "")


def missing_sections(rule: type[Rule]) -> list[str]:
    """The required `## Section` headings a rule's docstring lacks."""
    headings = set(re.findall(r"^## (.+?)\s*$", documentation(rule), re.M))
    return [section for section in required_sections(rule) if section not in headings]


def section(rule: type[Rule], title: str) -> str:
    """The text of one `## title` section ('' when absent)."""
    parts = re.split(r"^## (.+?)\s*$", documentation(rule), flags=re.M)
    for heading, text in zip(parts[1::2], parts[2::2], strict=True):
        if heading == title:
            return text.strip()
    return ""


def summary(rule: type[Rule]) -> str:
    """The first sentence of "What it does" (else of the docstring)."""
    text = " ".join((section(rule, "What it does") or documentation(rule).split("\n\n")[0]).split())
    first = re.split(r"(?<!\.)\.\s+(?=[A-Z`(])", text, maxsplit=1)[0]
    return first.rstrip(".") + "." if first else ""


def docs_path(rule: type[Rule]) -> str:
    """Where the rule's page lives, relative to the repository root."""
    return f"{DOCS_ROOT}/{rule.family}/{rule.name}.md"


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
