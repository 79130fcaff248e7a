"""prove's rules and scenarios as modules: each scenario declares its guarded counts once,
its rule names that declaration, the run order and the rule pages come from the
declarations, and a worker process imports none of the coordinator's modules."""

from __future__ import annotations

import importlib
import subprocess
import sys

from agentddl.checks.core.rules import documentation, section
from agentddl.checks.docs.prove import prove_documentation
from agentddl.checks.docs.rules import rule_page
from agentddl.checks.prove.rules import all_rules
from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS, declared
from agentddl.checks.prove.soak import SCENARIO as SOAK

RUN_ORDER = (
    "claim_race",
    "crash_mid_step",
    "stale_writer",
    "forged_lease",
    "idempotency",
    "outbox",
    "poison_message",
    "tenant_isolation",
    "version_races",
    "approval_once",
    "server_crash",
    "pooler_restart",
    "failover",
)
HOT_RUN_ORDER = ("hot_stale_writer", "hot_expiry", "hot_flush", "hot_tenant_read")


def test_the_run_order_comes_from_the_declarations() -> None:
    assert SCENARIOS == RUN_ORDER
    assert HOT_SCENARIOS == HOT_RUN_ORDER
    assert [s.name for s in declared()] == [*RUN_ORDER, *HOT_RUN_ORDER]


def test_each_rule_names_its_scenarios_declaration_and_each_scenario_has_one_rule() -> None:
    rules = all_rules()
    # the soak runs only with --soak: its coordinator declares it, outside the scenarios
    assert [rule.scenario for rule in rules] == sorted([*declared(), SOAK], key=lambda s: s.run_order)
    for rule in rules:
        where = "soak" if rule.scenario is SOAK else f"scenarios.{rule.scenario.name}"
        module = importlib.import_module(f"agentddl.checks.prove.{where}")
        assert rule.scenario is module.SCENARIO
        assert rule.__module__ == f"agentddl.checks.prove.rules.{rule.name.replace('-', '_')}"
        assert rule.remedy


def test_the_page_lists_the_declared_guarded_counts_written_nowhere_else() -> None:
    for rule in all_rules():
        assert "Guarded counts" not in documentation(rule), rule.name  # declared by the scenario
        what = section_of(prove_documentation(rule), "What it does")
        listed = what.split("Guarded counts (each must be zero):", 1)[1]
        names = [word.strip(" `.\n,") for word in listed.split("`") if word.strip(" `.\n,")]
        assert names == list(rule.scenario.guarded), rule.name
        assert section(rule, "Why is this bad?") in rule_page(rule)


def test_no_page_names_a_file_the_repository_does_not_ship() -> None:
    for rule in all_rules():
        assert "seeds/" not in rule_page(rule) and "seed 0" not in rule_page(rule), rule.name


def test_a_worker_imports_none_of_the_coordinators_modules() -> None:
    """A worker process imports the worker and every scenario (their `work_*` functions):
    not the runner, the rules, the report or the reporters."""
    code = (
        "import importlib, sys\n"
        "import agentddl.checks.prove.worker\n"
        "from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS\n"
        "for name in (*SCENARIOS, *HOT_SCENARIOS):\n"
        "    importlib.import_module(f'agentddl.checks.prove.scenarios.{name}')\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    coordinator = {"runner", "report", "rules"}
    assert not {f"agentddl.checks.prove.{name}" for name in coordinator} & loaded
    assert "rich" not in loaded and "agentddl.checks.core.report" not in loaded


def section_of(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
