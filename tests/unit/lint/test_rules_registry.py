"""Rule discovery: every module in checks/lint/rules defines one well-named rule."""

from __future__ import annotations

import re

from agentddl.checks.lint.rules import all_rules, rules_by_name


def test_rules_are_discovered_sorted_by_code() -> None:
    codes = [rule.code for rule in all_rules()]
    assert codes == sorted(codes)
    assert {"ADL000", "ADL001", "ADL002", "ADL101"} <= set(codes)


def test_codes_and_names_are_unique_and_well_formed() -> None:
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules), "duplicate rule code"
    assert len({r.name for r in rules}) == len(rules), "duplicate rule name"
    for rule in rules:
        assert re.fullmatch(r"ADL\d{3}", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.severity in ("error", "warning", "info"), rule.name


def test_rules_by_name_finds_each_rule() -> None:
    assert rules_by_name()["require-concurrent-index-creation"].code == "ADL101"
