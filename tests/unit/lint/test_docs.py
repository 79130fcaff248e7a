"""Rule docs: every docstring has the required sections; docs/rules/ is up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentddl.checks.lint import docs
from agentddl.checks.lint.rules import all_rules

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "rules"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.name)
def test_docstring_has_every_section(rule: type) -> None:
    assert docs.missing_sections(rule) == []


def test_generated_docs_and_readme_table_are_up_to_date() -> None:
    assert docs.drift(DOCS, ROOT / "README.md") == [], "run: python -m agentddl.checks.lint.docs"


def test_check_mode_detects_drift(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{docs.README_START}\nold table\n{docs.README_END}\n\n## More\n")
    out = tmp_path / "rules"
    args = ["--out", str(out), "--readme", str(readme)]
    assert docs.main([*args, "--check"]) == 1  # nothing generated yet
    assert docs.main(args) == 0
    assert docs.main([*args, "--check"]) == 0
    text = readme.read_text()
    assert "old table" not in text and text.startswith("# x\n") and text.endswith("\n## More\n")
    assert "| ADL104 | [`require-lock-timeout`](docs/rules/require-lock-timeout.md) |" in text
    page = out / "require-lock-timeout.md"
    page.write_text(page.read_text() + "edited by hand\n")
    (out / "retired-rule.md").write_text("old\n")
    readme.write_text(text.replace("| ADL104 |", "| ADL999 |"))
    assert docs.main([*args, "--check"]) == 1
    assert set(docs.drift(out, readme)) == {str(page), str(out / "retired-rule.md"), str(readme)}


def test_readme_without_markers_is_reported_not_overwritten(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    args = ["--out", str(tmp_path / "rules"), "--readme", str(readme)]
    assert docs.main(args) == 1
    assert readme.read_text() == "# no markers\n"
    assert docs.main([*args, "--check"]) == 1
