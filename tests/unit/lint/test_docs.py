"""Rule docs: every lint rule's docstring has the required sections (Alembic's among
them) and its page in docs/rules/lint/, written by `python -m agentddl.checks.docs` from
that docstring, is current. (tests/unit/test_docs_site.py checks every family's pages
byte for byte and the index.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.core.rules import (
    ALEMBIC_SECTION,
    Rule,
    docs_path,
    documentation,
    missing_sections,
    required_sections,
)
from agentddl.checks.lint.rules import all_rules

ROOT = Path(__file__).resolve().parents[3]
REGENERATE = "run: python -m agentddl.checks.docs"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.name)
def test_docstring_has_every_section(rule: type[Rule]) -> None:
    assert ALEMBIC_SECTION in required_sections(rule)
    assert missing_sections(rule) == []


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.name)
def test_every_rule_has_a_current_page(rule: type[Rule]) -> None:
    assert docs_path(rule) == f"docs/rules/lint/{rule.name}.md"
    page = ROOT / docs_path(rule)
    assert page.is_file(), REGENERATE
    text = page.read_text(encoding="utf-8")
    assert f"\n# {rule.code}: {rule.name}\n" in text, REGENERATE
    assert f"default severity: **{rule.severity}**" in text, REGENERATE
    assert text.endswith("\n\n" + documentation(rule) + "\n"), REGENERATE


def test_no_page_of_a_rule_that_does_not_exist() -> None:
    pages = {p.name for p in (ROOT / "docs" / "rules" / "lint").glob("*.md")}
    assert pages == {f"{rule.name}.md" for rule in all_rules()}, REGENERATE
