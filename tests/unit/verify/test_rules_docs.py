"""Verify rules are well-formed, and docs/rules/verify/ is generated from them by the
central generator (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

from agentddl.checks.core.report.sarif import sarif_log
from agentddl.checks.core.rules import docs_path, missing_sections
from agentddl.checks.db.indexes import predicate_only_requires_not_null
from agentddl.checks.docs.__main__ import drift
from agentddl.checks.docs.rules import rule_page
from agentddl.checks.verify import VerifyResult, build_report
from agentddl.checks.verify.generic.sequence_near_exhaustion import used_fraction
from agentddl.checks.verify.rules import all_rules, rules_in_group

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "rules" / "verify"


def test_rules_have_unique_codes_names_and_every_docstring_section() -> None:
    rules = all_rules()
    assert len({r.code for r in rules}) == len({r.name for r in rules}) == len(rules) >= 20
    for rule in rules:
        assert re.fullmatch(r"ADV1\d\d", rule.code) and re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert rule.severity in ("error", "warning", "info") and rule.group in ("generic", "profile")
        assert rule.family == "verify" and missing_sections(rule) == [], rule.name
    assert {r.code for r in rules_in_group("generic")} == {f"ADV1{n:02}" for n in range(1, 14)}


def test_every_rule_has_its_page_up_to_date_and_no_page_is_orphaned() -> None:
    for rule in all_rules():
        page = ROOT / docs_path(rule)
        assert page.parent == DOCS and page.is_file(), f"{rule.name}: run python -m agentddl.checks.docs"
        stale = f"{page}: run python -m agentddl.checks.docs"
        assert page.read_text(encoding="utf-8") == rule_page(rule), stale
    assert sorted(p.stem for p in DOCS.glob("*.md")) == sorted(rule.name for rule in all_rules())


def test_the_generator_reports_stale_and_orphaned_verify_pages(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "rules" / "verify"
    shutil.copytree(DOCS, out)
    (out / "fk-without-index.md").write_text("stale\n", encoding="utf-8")
    (out / "retired-rule.md").write_text("gone\n", encoding="utf-8")
    stale = sorted(p for p in drift(tmp_path) if p.startswith("docs/rules/verify/"))
    assert stale == ["docs/rules/verify/fk-without-index.md", "docs/rules/verify/retired-rule.md"]


def test_sarif_rule_metadata_links_the_docs() -> None:
    driver = sarif_log(build_report(VerifyResult([])))["runs"][0]["tool"]["driver"]
    info = {rule["id"]: rule for rule in driver["rules"]}
    assert info["ADV101"]["helpUri"] == "docs/rules/verify/fk-without-index.md"
    summary = info["ADV101"]["fullDescription"]["text"]
    assert summary.startswith("Reports a foreign key when no valid B-tree index")


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
