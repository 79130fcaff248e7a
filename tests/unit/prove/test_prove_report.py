"""prove's rules and report: one rule per scenario, a broken scenario is an error finding
of its rule naming the counts that broke, and the result renders in every format."""

from __future__ import annotations

import io
import json
import re

import pytest

from agentddl.checks.core.report import FORMATS, render
from agentddl.checks.core.rules import missing_sections
from agentddl.checks.prove.report import build_report, findings
from agentddl.checks.prove.result import ProveResult
from agentddl.checks.prove.rules import all_rules, finding_of
from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS
from agentddl.checks.prove.scenarios.base import verdict
from agentddl.checks.prove.scenarios.claim_race import SCENARIO as CLAIM_RACE
from agentddl.checks.prove.scenarios.version_races import SCENARIO as VERSION_RACES

RUN = {"profile": "default", "strategies": ["lease"], "postgres": [18], "workers": 2, "runs": 10}


def held_and_broken() -> ProveResult:
    counts = {"runs": 10, "double_claims": 0, "runs_completed": 10}
    held = verdict("claim_race", "lease", counts, CLAIM_RACE.guarded)
    counts = {"runs": 4, "stale_writes_accepted": 3, "versions_not_bumped_once": 4, "errors": 0}
    broken = verdict("version_races", "lease", counts, VERSION_RACES.guarded)
    return ProveResult([held, broken], 2.0, {**RUN, "existing": False})


PROVE_CODES = [f"ADP10{n}" for n in range(1, 10)] + [f"ADP11{n}" for n in range(9)]


def test_every_scenario_is_one_error_rule_with_a_documented_guarantee() -> None:
    rules = all_rules()
    assert [r.scenario.name for r in rules] == [*SCENARIOS, "soak", *HOT_SCENARIOS]  # the soak: --soak
    assert sorted(r.code for r in rules) == PROVE_CODES
    assert len({r.name for r in rules}) == len(rules)
    for rule in rules:
        assert rule.family == "prove" and rule.severity == "error"
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert missing_sections(rule) == [], rule.name


def test_a_broken_scenario_is_a_finding_naming_its_nonzero_counts() -> None:
    result = held_and_broken()
    held, broken = result.scenarios
    assert finding_of(held) is None
    found = finding_of(broken)
    assert found is not None
    assert (found.code, found.name, found.severity, found.object) == (
        "ADP107",
        "one-winner-per-version",
        "error",
        "lease/version_races",
    )
    assert found.message == (
        "stale_writes_accepted=3: transitions from a version another transition had already moved on; "
        "versions_not_bumped_once=4: runs whose version is not exactly one past the raced one."
    )
    assert "expected_version" in found.fix
    assert findings(result) == [found]


def test_worker_failures_are_named_in_the_finding() -> None:
    broken = verdict("outbox", "lease", {"worker_failures": 1}, {"worker_failures": "workers that failed"})
    broken.violations.append("worker failure: KeyError: 'claim'")
    found = finding_of(broken)
    assert found is not None
    assert found.message == "worker_failures=1: workers that failed; worker failure: KeyError: 'claim'."


def test_json_keeps_run_scenarios_totals_beside_the_common_keys() -> None:
    out = io.StringIO()
    render(build_report(held_and_broken()), "json", out)
    document = json.loads(out.getvalue())
    assert list(document) == [
        "tool",
        "schema_version",
        *RUN,
        "existing",
        "runs_per_second",
        "run",
        "scenarios",
        "totals",
        "findings",
        "summary",
    ]
    assert document["tool"] == "prove" and document["run"]["runs_per_second"] == 5.0
    assert [s["held"] for s in document["scenarios"]] == [True, False]
    assert document["totals"]["stale_writes_accepted"] == 3
    assert [f["code"] for f in document["findings"]] == ["ADP107"]
    assert document["summary"] == {"error": 1, "warning": 0, "info": 0}


def test_text_shows_the_table_totals_findings_and_verdict() -> None:
    out = io.StringIO()
    report = build_report(held_and_broken())
    render(report, "text", out)
    text = out.getvalue()
    assert "profile: default" in text and "BROKEN" in text and "held" in text
    assert "totals: duplicate effects 0, lost runs 0" in text and "2.0 s, 5.0 runs/s" in text
    assert "error ADP107 [one-winner-per-version] lease/version_races" in text
    assert "docs: docs/rules/prove/one-winner-per-version.md" in text
    assert text.rstrip().endswith("prove: 1 scenarios BROKEN (1/2): lease/version_races.")
    assert report.exit_code == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_and_a_held_run_exits_0(fmt: str) -> None:
    held = held_and_broken()
    held.scenarios.pop()
    out = io.StringIO()
    render(build_report(held), fmt, out)
    assert out.getvalue() or fmt == "github"  # github: one annotation per finding, none here
    assert build_report(held).exit_code == 0 and build_report(held).findings == []
    broken = io.StringIO()
    render(build_report(held_and_broken()), fmt, broken)
    assert "ADP107" in broken.getvalue()
    if fmt == "sarif":
        (run,) = json.loads(broken.getvalue())["runs"]
        assert sorted(r["id"] for r in run["tool"]["driver"]["rules"]) == PROVE_CODES
        location = run["results"][0]["locations"][0]["logicalLocations"][0]
        assert location["fullyQualifiedName"] == "lease/version_races"
    if fmt == "markdown":
        assert "| lease | version_races | **BROKEN** |" in broken.getvalue()
