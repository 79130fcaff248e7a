"""Verify rules are well-formed and docs/verify/ is generated from them (--check)."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

from agentddl.checks.verify import docs
from agentddl.checks.verify.generic.sequence_near_exhaustion import used_fraction
from agentddl.checks.verify.indexes import predicate_only_requires_not_null
from agentddl.checks.verify.registry import all_rules, rules_in_group
from agentddl.checks.verify.run import rule_infos

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "verify"


def test_rules_have_unique_codes_names_and_every_docstring_section() -> None:
    rules = all_rules()
    assert len({r.code for r in rules}) == len({r.name for r in rules}) == len(rules) >= 20
    for rule in rules:
        assert re.fullmatch(r"ADV1\d\d", rule.code) and re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert rule.severity in ("error", "warning", "info") and rule.group in ("generic", "profile")
        assert docs.missing_sections(rule) == [], rule.name
    assert {r.code for r in rules_in_group("generic")} == {f"ADV1{n:02}" for n in range(1, 13)}


def test_docs_are_up_to_date() -> None:
    assert docs.drift(DOCS) == [], "run python -m agentddl.checks.verify.docs"
    assert docs.main(["--out", str(DOCS), "--check"]) == 0


def test_check_mode_reports_stale_and_orphaned_pages(tmp_path: Path) -> None:
    out = tmp_path / "verify"
    shutil.copytree(DOCS, out)
    (out / "fk-without-index.md").write_text("stale\n", encoding="utf-8")
    (out / "retired-rule.md").write_text("gone\n", encoding="utf-8")
    assert docs.main(["--out", str(out), "--check"]) == 1
    assert sorted(Path(p).name for p in docs.drift(out)) == ["fk-without-index.md", "retired-rule.md"]
    assert docs.main(["--out", str(out)]) == 0 and docs.drift(out) == []


def test_sarif_rule_metadata_links_the_docs() -> None:
    info = {i.code: i for i in rule_infos()}
    assert info["ADV101"].help_uri == "docs/verify/fk-without-index.md"
    assert info["ADV101"].summary.startswith("Reports a foreign key when no valid B-tree index")


def test_partial_index_predicates_that_fk_lookups_satisfy() -> None:
    assert predicate_only_requires_not_null("", ["a"])
    assert predicate_only_requires_not_null("a IS NOT NULL", ["a", "b"])
    assert predicate_only_requires_not_null("(a IS NOT NULL) AND (b IS NOT NULL)", ["a", "b"])
    assert not predicate_only_requires_not_null("c IS NOT NULL", ["a"])
    assert not predicate_only_requires_not_null("a IS NOT NULL OR b IS NOT NULL", ["a", "b"])
    assert not predicate_only_requires_not_null("status = 'active'::text", ["status"])


def test_sequence_range_ends_at_the_narrowest_fed_column() -> None:
    row = {"last_value": 2_000_000_000, "increment": 1, "max_value": 2**63 - 1, "min_value": 1}
    used, limit = used_fraction({**row, "column_max": 2_147_483_647})
    assert limit == 2_147_483_647 and used > Decimal("0.93")
    assert used_fraction({**row, "column_max": None})[0] < Decimal("0.001")
    descending = {"last_value": -30000, "increment": -1, "max_value": -1, "min_value": -(2**63)}
    assert used_fraction({**descending, "column_max": 32767})[1] == -32768
    assert used_fraction({**row, "last_value": None, "column_max": None}) == (Decimal(0), 0)
