"""Every trace rule is a documented `core.rules.Rule` of the trace family."""

from __future__ import annotations

import pytest

from agentddl.checks.core.rules import missing_sections, section
from agentddl.checks.trace.rules import all_rules


def test_the_rules_are_adt101_to_adt108_with_unique_names() -> None:
    assert [rule.code for rule in all_rules()] == [f"ADT10{n}" for n in range(1, 9)]
    assert len({rule.name for rule in all_rules()}) == 8
    assert {rule.family for rule in all_rules()} == {"trace"}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.name)
def test_docstring_has_every_section_and_cites_the_postgresql_docs(rule: type) -> None:
    assert missing_sections(rule) == []
    assert "https://www.postgresql.org/docs/current/" in section(rule, "References")
    example = section(rule, "Example")
    assert "```sql" in example and "observed" in example  # the statement, then what trace saw
