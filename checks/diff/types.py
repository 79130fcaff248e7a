"""What a diff rule is: a `core.rules.Rule` of family "diff" that judges a delta."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.rules import Rule
from agentddl.generator.delta import Delta


class DiffRule(Rule):
    """Base class: subclasses set the class attributes and judge a delta from one schema
    to another (`new_path`: the new profile's file, where findings are located)."""

    family = "diff"

    @classmethod
    def judge(cls, delta: Delta, new_path: Path | None) -> Iterator[Finding]:
        raise NotImplementedError
