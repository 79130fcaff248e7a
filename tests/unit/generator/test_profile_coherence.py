"""Profiles whose keys are each valid but contradict each other are refused at load, at
file:line:column of the key to change (or, when the file leaves that key to its default,
of the key that causes it), with exit 2 and nothing written; and what the generator then
derives for the profiles it accepts stays consistent (partitions under the row budget,
no negative run-lifetime cap in PLAN.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from profiles import example_profiles

from agentddl.checks.cli.main import main
from agentddl.generator.errors import ProfileError
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile, load_profile_text
from agentddl.generator.profile.periods import MAX_PARTITIONS, TARGET_ROWS_PER_PARTITION, partitions_kept
from agentddl.generator.render.plan import render_plan

HEAD = "profile: 1\nname: coherent\n"

# (profile body, expected "line:column: message" prefix of the error)
CONTRADICTIONS = {
    "checkpoints-shorter-than-a-run-lives": (
        "retention: {checkpoints: 1h}\nlease: {duration: 3h}\n",
        "3:26: retention.checkpoints: 1h is not longer than a run can live: 5 attempts",
    ),
    "events-shorter-than-a-run-lives": (
        "lease: {duration: 2h, max_attempts: 10}\nretention: {events: 20h}\n",
        "4:21: retention.events: 20h is not longer than a run can live: 10 attempts",
    ),
    "history-kept-by-default-lease-too-long": (  # retention left to its default: the lease is to blame
        "lease:\n  duration: 1d\n  max_attempts: 20\n",
        "4:13: retention.checkpoints: 14d is not longer than a run can live",
    ),
    "runs-shorter-than-events": (
        "retention:\n  events: 30d\n  runs: 7d\n",
        "5:9: retention.runs: 7d is shorter than retention.events (30d)",
    ),
    "runs-shorter-than-checkpoints": (
        "retention: {events: 7d, checkpoints: 60d, runs: 30d}\n",
        "3:49: retention.runs: 30d is shorter than retention.checkpoints (60d)",
    ),
    "runs-shorter-than-delivered-outbox": (
        "retention: {events: 1d, checkpoints: 1d, outbox_delivered: 3d, runs: 2d}\n",
        "3:70: retention.runs: 2d is shorter than retention.outbox_delivered (3d)",
    ),
    "lease-without-room-for-a-heartbeat": (
        "lease: {duration: 2s}\n",
        "3:19: lease.duration: 2s leaves no room for a heartbeat",
    ),
    "no-partition-period-fits": (
        "volume: {steps_per_second: 1000000, events_per_step: 100}\n",
        "3:28: retention.events: 30d at ~8,640,000,000,000 event rows/day (from volume) fits no partition",
    ),
    "too-many-partitions": (
        "volume: {steps_per_second: 5000, events_per_step: 10}\n",
        "3:28: retention.events: 30d at ~4,320,000,000 event rows/day (from volume) needs minutely",
    ),
    "retention-too-short-for-two-partitions": (
        "lease: {duration: 3s, max_attempts: 1}\nretention: {events: 1m, checkpoints: 1m}\n",
        "4:21: retention.events: 1m at ~34,560,000 event rows/day (from volume) fits no partition period",
    ),
}


@pytest.mark.parametrize("case", sorted(CONTRADICTIONS))
def test_a_contradiction_is_refused_at_its_key(case: str) -> None:
    body, expected = CONTRADICTIONS[case]
    with pytest.raises(ProfileError) as caught:
        load_profile_text(HEAD + body, "p.yaml")
    assert str(caught.value).startswith(f"p.yaml:{expected}"), str(caught.value)


def test_a_contradiction_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(HEAD + CONTRADICTIONS["checkpoints-shorter-than-a-run-lives"][0])
    out = tmp_path / "out"
    assert main(["generate", str(profile), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agentddl: {profile}:3:26: retention.checkpoints:") and "Traceback" not in err
    assert not out.exists()


def test_a_profile_built_in_code_is_held_to_the_same_rules() -> None:
    with pytest.raises(ValueError, match=r"retention\.runs: 7d is shorter than retention\.events"):
        Profile.model_validate({"profile": 1, "name": "x", "retention": {"runs": "7d"}})


def test_the_boundaries_are_accepted() -> None:
    """Just longer than a run can live (5 x 60s = 5m), runs as long as history: valid."""
    profile = load_profile_text(
        HEAD + "retention: {events: 6m, checkpoints: 6m, outbox_delivered: 6m, runs: 6m}\n"
    )
    model = derive(profile)
    assert {t.partitioning.granularity for t in model.tables if t.partitioning} == {"minute"}


@pytest.mark.parametrize("name", sorted(example_profiles()))
def test_every_partition_stays_under_the_row_budget(name: str) -> None:
    model = derive(example_profiles()[name])
    for table in model.tables:
        part = table.partitioning
        if part is None:
            continue
        rows = int(part.why.split("~")[1].split()[0].replace(",", ""))  # rows/day, as the model says
        assert part.period.rows(rows) <= TARGET_ROWS_PER_PARTITION, (table.name, part.granularity)
        assert partitions_kept(part.period, part.retention_seconds, part.runway) <= MAX_PARTITIONS
        assert 2 * part.period.seconds <= part.retention_seconds


def test_high_volume_gets_hourly_partitions_and_plan_figures_agree() -> None:
    """2,000 steps/s x 3 events = 518.4M events a day: daily partitions held ten times the
    budget; hourly ones hold 21.6M. PLAN.md says so, and its run-lifetime cap is positive."""
    model = derive(example_profiles()["high-volume"])
    events = model.table("events").partitioning
    assert events is not None and events.granularity == "hour"
    assert "hourly partitions hold ~21,600,000 rows each" in events.why
    plan = render_plan(model)
    assert "| events | `run_created_at` | hourly |" in plan
    assert "cap a run's lifetime at 71 hours" in plan  # checkpoints 3d minus one hour
    assert "-" not in plan.split("cap a run's lifetime at ")[1].split(" (")[0]


def test_a_short_window_caps_runs_at_a_positive_lifetime() -> None:
    """The issue's "-23 hours": checkpoints kept 1h with a 60s lease now get minute
    partitions, and the cap is the window less one minute."""
    model = derive(load_profile_text(HEAD + "retention: {checkpoints: 1h}\n"))
    assert model.table("checkpoints").partitioning.granularity == "minute"  # type: ignore[union-attr]
    assert "cap a run's lifetime at 59 minutes" in render_plan(model)
