"""Rule docs: every docstring has the required sections; docs/rules/ is up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.lint import docs
from agentddl.checks.lint.rules import all_rules

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.name)
def test_docstring_has_every_section(rule: type) -> None:
    assert docs.missing_sections(rule) == []


def test_generated_docs_are_up_to_date() -> None:
    assert docs.drift(DOCS) == [], "run: python -m agentddl.checks.lint.docs"


def test_check_mode_detects_drift(tmp_path: Path) -> None:
    docs.write(tmp_path)
    assert docs.main(["--out", str(tmp_path), "--check"]) == 0
    page = tmp_path / "require-lock-timeout.md"
    page.write_text(page.read_text() + "edited by hand\n")
    (tmp_path / "retired-rule.md").write_text("old\n")
    assert docs.main(["--out", str(tmp_path), "--check"]) == 1
    assert set(docs.drift(tmp_path)) == {str(page), str(tmp_path / "retired-rule.md")}
