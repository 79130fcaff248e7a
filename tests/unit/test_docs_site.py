"""The docs site: every generated page is current, every rule of every family has its
page and every docstring section, and `mkdocs build --strict` passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentddl.checks.cli.main import COMMANDS
from agentddl.checks.core.rules import docs_path, missing_sections
from agentddl.checks.docs.__main__ import drift
from agentddl.checks.docs.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("lint", "verify", "trace", "audit", "prove", "diff", "citus")


def test_every_family_registers_rules() -> None:
    families = {rule.family for rule in all_rules()}
    assert families == set(FAMILIES)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_has_every_section_and_a_page(rule: type) -> None:
    assert missing_sections(rule) == []
    assert (ROOT / docs_path(rule)).is_file()


def test_codes_and_names_are_unique_and_prefixed() -> None:
    prefixes = {
        **{"lint": "ADL", "verify": "ADV", "trace": "ADT", "audit": "ADA", "prove": "ADP"},
        **{"diff": "ADC", "citus": "ADS"},
    }
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({(r.family, r.name) for r in rules}) == len(rules)
    assert all(r.code.startswith(prefixes[r.family]) for r in rules)


def test_generated_pages_are_current() -> None:
    assert drift(ROOT) == [], "run: python -m agentddl.checks.docs"


def nav_pages() -> list[str]:
    """Every page mkdocs.yml's nav lists (it holds a !!python/name tag: read it as text)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    nav = nav.split("\n\n", 1)[0].split("\nnot_in_nav:", 1)[0]

    def pages(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [p for item in node for p in pages(item)]
        if isinstance(node, dict):
            return [p for value in node.values() for p in pages(value)]
        return []

    return pages(yaml.safe_load(nav))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_page_with_its_help_in_the_nav(command: str) -> None:
    page = ROOT / "docs" / "commands" / f"{command}.md"
    assert page.is_file(), f"write {page.relative_to(ROOT)} (see docs/architecture.md, Adding things)"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# agentddl {command}\n")
    assert f"<!-- help: {command} -->\n```text\nUsage: agentddl {command} " in text
    assert f"commands/{command}.md" in nav_pages(), f"add commands/{command}.md to mkdocs.yml's nav"


def test_every_command_page_is_a_command() -> None:
    pages = sorted(p.stem for p in (ROOT / "docs" / "commands").glob("*.md"))
    assert set(pages) <= set(COMMANDS)


def test_every_nav_page_exists() -> None:
    for page in nav_pages():
        assert (ROOT / "docs" / page).is_file(), page


def test_no_page_claims_agentddl_is_on_pypi() -> None:
    for page in (ROOT / "docs").rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"pip install agentddl\b(?![-/\w])", text), page


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
