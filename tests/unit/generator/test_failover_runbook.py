"""PLAN.md's failover runbook: the last section, numbered after whichever optional
sections the profile has, and following the profile (its lease, its app role, the hot
projection only when there is one)."""

from __future__ import annotations

import re

import pytest

from agentddl.generator.model import derive
from agentddl.generator.profile import load_profile_text
from agentddl.generator.render.plan import render_plan

CHANGES = "## 6. Changes from the previous profile\n\nx"


def plan_of(body: str, changes: str | None = None) -> str:
    return render_plan(derive(load_profile_text(f"profile: 1\nname: f\n{body}", "f.yaml")), changes)


@pytest.mark.parametrize(
    ("body", "changes", "number"),
    [
        ("", None, 6),
        ("", CHANGES, 7),
        ("hot_state: {store: redis}\n", None, 7),
        ("hot_state: {store: redis}\n", CHANGES, 8),
        ("distribution: {engine: citus}\n", None, 7),
    ],
)
def test_the_runbook_is_the_last_section_numbered_after_the_others(
    body: str, changes: str | None, number: int
) -> None:
    plan = plan_of(body, changes)
    headings = re.findall(r"^## (\d+)\. (.+)$", plan, re.M)
    assert headings[-1] == (str(number), "Failover runbook")
    assert [int(n) for n, _ in headings] == list(range(1, number + 1))


def test_the_runbook_follows_the_profile() -> None:
    plan = plan_of("lease: {duration: 90s}\nroles: {app: worker_app}\n")
    runbook = plan[plan.index("## 6. Failover runbook") :]
    for needle in (
        "target_session_attrs=read-write",
        "ALTER ROLE worker_app SET synchronous_commit = on",
        "at most 90 seconds later",
        "`latest_checkpoint`",
        "`message_id`",
        "`delivered_at` was lost",
        "never the same lease token",
        "agentddl prove --scenario failover",
    ):
        assert needle in runbook, needle
    assert "Redis" not in runbook  # no projection to rebuild without hot_state.store: redis


def test_with_a_hot_projection_it_is_rebuilt_from_postgres() -> None:
    plan = plan_of("hot_state: {store: redis}\n")
    runbook = plan[plan.index("Failover runbook") :]
    assert "| Redis projection |" in runbook and "Rebuild the Redis projection from PostgreSQL" in runbook
