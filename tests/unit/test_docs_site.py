"""The docs site: every generated page is current, every rule of every family has its
page and every docstring section, and `mkdocs build --strict` passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentddl.checks.core.rules import docs_path, missing_sections
from agentddl.checks.docs.__main__ import drift
from agentddl.checks.docs.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("lint", "verify", "trace", "audit", "prove")


def test_every_family_registers_rules() -> None:
    families = {rule.family for rule in all_rules()}
    assert families == set(FAMILIES)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_has_every_section_and_a_page(rule: type) -> None:
    assert missing_sections(rule) == []
    assert (ROOT / docs_path(rule)).is_file()


def test_codes_and_names_are_unique_and_prefixed() -> None:
    prefixes = {"lint": "ADL", "verify": "ADV", "trace": "ADT", "audit": "ADA", "prove": "ADP"}
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({(r.family, r.name) for r in rules}) == len(rules)
    assert all(r.code.startswith(prefixes[r.family]) for r in rules)


def test_generated_pages_are_current() -> None:
    assert drift(ROOT) == [], "run: python -m agentddl.checks.docs"


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
