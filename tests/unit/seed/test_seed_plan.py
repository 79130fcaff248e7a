"""The seed plan is pure: exact event totals, deterministic, skewed as documented."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from profiles import example_profiles

from agentddl.checks.db.seed import plan_seed
from agentddl.checks.db.seed.plan import HOT_MINIMUM, OLD_RUNS_PER_WINDOW_RUN, zipf_tenant
from agentddl.generator.model import derive

PROFILES = example_profiles()


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("events", [1, 997, 50_000])
def test_events_land_exactly_and_only_in_the_window(name: str, events: int) -> None:
    model = derive(PROFILES[name])
    plan = plan_seed(model, events)
    runs = plan.runs
    assert plan.row_counts["events"] == events
    window = plan.window_seconds
    assert all(age < window for age, n in zip(runs.age_seconds, runs.events, strict=True) if n)
    assert all(n == 0 for s, n in zip(runs.status, runs.events, strict=True) if s == "queued")
    keep = model.profile.retention.checkpoints
    assert all(age < keep for age, n in zip(runs.age_seconds, runs.checkpoints, strict=True) if n)


def test_deterministic() -> None:
    model = derive(PROFILES["default"])
    assert plan_seed(model, 20_000) == plan_seed(model, 20_000)
    assert plan_seed(model, 20_000, seed=1) != plan_seed(model, 20_000)


def test_proportions_follow_the_profile() -> None:
    """Events per run from steps/run x events/step; runs from retention (steady state)."""
    model = derive(PROFILES["default"])  # 200 steps/s, 100k runs/day: 172.8 steps, 345.6 events
    plan = plan_seed(model, 1_000_000)
    counts = plan.row_counts
    with_history = sum(1 for n in plan.runs.events if n)
    assert 330 < counts["events"] / with_history < 360
    assert counts["checkpoints"] == pytest.approx(counts["events"] / 2, rel=0.01)
    # runs kept 365 days, history 14: ~26x more runs than runs with history
    assert 24 < counts["runs"] / with_history < 28


def test_most_runs_finished_and_a_small_hot_set() -> None:
    plan = plan_seed(derive(PROFILES["default"]), 1_000_000)
    status = Counter(plan.runs.status)
    live = status["queued"] + status["running"] + status["waiting"]
    assert live / len(plan.runs) < 0.01
    assert status["succeeded"] > 0.85 * len(plan.runs)
    assert all(status[s] >= n for s, n in HOT_MINIMUM.items())
    hot_ages = [a for a, s in zip(plan.runs.age_seconds, plan.runs.status, strict=True) if s == "queued"]
    assert max(hot_ages) < plan.window_seconds
    assert plan.expired_leases >= 1


def test_tenants_are_zipf_sized() -> None:
    plan = plan_seed(derive(PROFILES["default"]), 1_000_000)
    sizes = sorted(Counter(plan.runs.tenant).values(), reverse=True)
    share = sizes[0] / sum(sizes)
    expected = math.log(2) / math.log(plan.tenants + 1)
    assert share == pytest.approx(expected, rel=0.3)
    assert sizes[0] > 20 * sizes[-1]


def test_zipf_draw_covers_every_tenant() -> None:
    assert zipf_tenant(0.0, 10) == 0
    assert zipf_tenant(0.999999, 10) == 9
    assert {zipf_tenant(i / 10_000, 10) for i in range(10_000)} == set(range(10))


def test_single_tenant_has_no_tenants_and_trees_share_a_tenant() -> None:
    assert plan_seed(derive(PROFILES["single-tenant"]), 5_000).tenants == 0
    runs = plan_seed(derive(PROFILES["default"]), 5_000).runs
    children = [i for i, p in enumerate(runs.parent) if p >= 0]
    assert children
    assert all(runs.tenant[i] == runs.tenant[runs.parent[i]] and runs.parent[i] < i for i in children)


def test_a_window_of_an_hour_keeps_history_inside_it() -> None:
    """Events kept an hour (minute partitions): the runs with history were all created in
    that hour, not a day (whose partitions are gone), and a year of runs does not make
    8,760 old runs per run with history."""
    from agentddl.generator.profile import load_profile_text

    text = "profile: 1\nname: h\nretention: {events: 1h, checkpoints: 1h}\nlease: {duration: 3s}\n"
    plan = plan_seed(derive(load_profile_text(text)), 3_000)
    assert plan.window_seconds == 3600
    runs = plan.runs
    assert all(age < 3600 for age, n in zip(runs.age_seconds, runs.events, strict=True) if n)
    in_window = sum(1 for age in runs.age_seconds if age < 3600)
    assert len(runs) <= in_window * (1 + OLD_RUNS_PER_WINDOW_RUN)
