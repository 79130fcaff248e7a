"""A prove rule's page text: its docstring, with the counts its scenario guards listed at
the end of "What it does". The scenario declares them once (its module's `SCENARIO`); the
page is written from that declaration, never from a second copy in the docstring."""

from __future__ import annotations

import re
import textwrap

from agentddl.checks.core.rules import documentation
from agentddl.checks.prove.rules import ProveRule

WIDTH = 84  # the docstrings' own width, so the page reads as one text


def prove_documentation(rule: type[ProveRule]) -> str:
    text = documentation(rule)
    names = ", ".join(f"`{count}`" for count in rule.scenario.guarded)
    guarded = textwrap.fill(
        f"Guarded counts (each must be zero): {names}.",
        WIDTH,
        break_long_words=False,
        break_on_hyphens=False,
    )
    what = re.search(r"^## What it does\n.*?(?=\n\n## )", text, re.S | re.M)
    if what is None:  # missing_sections reports it; the page is the docstring as written
        return text
    return f"{text[: what.end()]}\n\n{guarded}{text[what.end() :]}"
