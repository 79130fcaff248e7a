"""The delta of every profile change: online by construction (each lock checked against
the lint lock model), reversible, rendered into a revision Alembic can run offline."""

from __future__ import annotations

import json
from pathlib import Path

import pglast
import pytest
from profile_changes import DEFAULT, changed, key_changes, refused_changes, strategy_pairs
from test_revisions import write_profile

from agentddl.checks.alembic.offline import offline_sql
from agentddl.checks.cli.main import main
from agentddl.checks.diff.locks import declared_mode, parsed_mode
from agentddl.checks.pg.lockmodes import LockMode
from agentddl.generator.delta import compute_delta
from agentddl.generator.delta.types import Step
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile
from agentddl.generator.render.delta_revision import render_delta_revision

CHANGES = {f"{name}-pg{major}": pair for major in (15, 18) for name, pair in key_changes(major).items()}
CHANGES |= {f"strategy-{name}": pair for name, pair in strategy_pairs(18).items()}


def revision_text(old: Profile, new: Profile) -> str:
    return render_delta_revision(
        new, compute_delta(old, new), compute_delta(new, old), "0002", "0001", "0001"
    )


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_every_change_has_online_steps_both_ways(name: str) -> None:
    old, new = CHANGES[name]
    forward, back = compute_delta(old, new), compute_delta(new, old)
    assert forward.refusals == () and back.refusals == ()
    assert bool(forward.steps) == bool(back.steps)
    for step in (*forward.steps, *back.steps):
        assert_online(step, new.engine.version)


def assert_online(step: Step, version: int) -> None:
    mode = declared_mode(step)
    parsed = parsed_mode(step, version)
    if parsed is not None:  # the generator and the lint lock model agree
        assert mode is not None and parsed <= mode, (step.summary, parsed, mode)
    if mode is not None and mode.blocks_writes():
        assert step.run == "locked" and step.work == "catalog", step.summary  # short, timed out, retried
    if step.work == "build":
        assert step.run in ("alone", "partitions")
        assert all("CONCURRENTLY" in s for s in step.statements), step.summary
    for statement in step.statements:
        if not statement.startswith(("IF ", "SELECT setval")):
            pglast.parse_sql(statement)


def test_declared_locks_match_the_parsed_ones_exactly_where_both_exist() -> None:
    checked = 0
    for old, new in CHANGES.values():
        for step in compute_delta(old, new).steps:
            parsed = parsed_mode(step, new.engine.version)
            if parsed is not None and step.statements and not step.partitioned:
                checked += 1
                # DROP POLICY is the one statement the lint model does not lock (it is
                # always next to one that takes ACCESS EXCLUSIVE on the same table)
                assert parsed == declared_mode(step) or step.lock == str(LockMode.ACCESS_EXCLUSIVE)
    assert checked > 50


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_the_revision_renders_offline(name: str, tmp_path: Path) -> None:
    old, new = CHANGES[name]
    path = tmp_path / "0002_change.py"
    path.write_text(revision_text(old, new), encoding="utf-8")
    compile(path.read_text(), str(path), "exec")
    (result,) = offline_sql([path])
    assert result.error is None, result.error
    delta = compute_delta(old, new)
    assert result.sql.count("set_config('lock_timeout', '100ms', true)") >= sum(
        1 for s in delta.steps if s.run == "locked"
    )
    if any(s.partitioned for s in delta.steps):
        assert "online only: for each partition" in result.sql


def test_rendering_is_deterministic() -> None:
    for old, new in list(CHANGES.values())[:5]:
        assert revision_text(old, new) == revision_text(old, new)


@pytest.mark.parametrize("name", sorted(refused_changes()))
def test_changes_without_an_online_form_are_refused_with_a_plan(name: str) -> None:
    old, new, key = refused_changes()[name]
    refusals = compute_delta(old, new).refusals
    assert [r.key for r in refusals] == [key]
    assert len(refusals[0].plan) >= 3 and refusals[0].reason


def test_expand_before_contract() -> None:
    old, new = CHANGES["payload_limits-pg15"]
    phases = [s.phase for s in compute_delta(old, new).steps]
    assert phases == sorted(phases, key=["prepare", "expand", "validate", "switch", "contract"].index)
    assert phases.index("validate") < phases.index("contract")


def test_a_partitioned_index_is_built_per_partition_and_swapped_only_when_valid() -> None:
    old, new = CHANGES["volume_tier_up-pg18"]
    steps = compute_delta(old, new).steps
    built = next(s for s in steps if s.partitioned)
    assert built.partitioned is not None and built.partitioned.definition == "USING brin (created_at)"
    swap = next(s for s in steps if s.phase == "contract" and "events_created_at_idx" in s.summary)
    assert swap.guard and "indisvalid" in swap.guard
    assert swap.lint_ignores[0][0] == "require-concurrent-index-deletion"


def diff(tmp_path: Path, old: Profile, new: Profile, *args: str) -> int:
    return main(
        [
            "diff",
            str(write_profile(tmp_path / "old.yaml", old)),
            str(write_profile(tmp_path / "new.yaml", new)),
            *args,
        ]
    )


def test_diff_prints_steps_locks_reads_and_duration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = CHANGES["payload_limits-pg15"]
    assert diff(tmp_path, old, new, "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tool"] == "diff" and report["findings"] == []
    validate = next(s for s in report["steps"] if s["phase"] == "validate")
    assert (
        validate["lock"] == "SHARE UPDATE EXCLUSIVE" and validate["scans"] and not validate["blocks_writes"]
    )
    swap = next(s for s in report["steps"] if s["phase"] == "contract")
    assert swap["blocks_writes"] and swap["duration"] == "instant (catalog only)"
    assert diff(tmp_path, old, new) == 0
    text = capsys.readouterr().out
    assert "payload.inline_limit: 64kB -> 32kB" in text and "validate" in text and "ACCESS EXCLUSIVE" in text
    assert diff(tmp_path, old, new, "--format", "markdown") == 0
    markdown = capsys.readouterr().out
    assert "## 6. Changes from the previous profile" in markdown and "| # | phase | step | lock |" in markdown


def test_diff_of_a_refused_change_exits_1_with_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, _ = refused_changes()["tenancy_added"]
    assert diff(tmp_path, old, new) == 1
    out = capsys.readouterr().out
    assert "refused tenancy.column: null -> tenant_id" in out and "1. expand:" in out


def test_diff_reads_a_folder_of_revisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = write_profile(tmp_path / "p.yaml", DEFAULT)
    assert main(["generate", str(profile), "--out", str(tmp_path / "m")]) == 0
    rls = write_profile(tmp_path / "rls.yaml", changed(DEFAULT, **{"tenancy.row_level_security": True}))
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "m"), str(rls), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the claim index's three steps, and row-level security on each tenant-owned table
    tenant_owned = [t for t in derive(DEFAULT).tables if t.tenant_owned]
    assert report["from"].endswith("0001_agentddl_schema.py (revision 0001)")
    assert len(report["steps"]) == 3 + len(tenant_owned)


def test_diff_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(write_profile(tmp_path / "a.yaml", DEFAULT))]) == 2
    assert capsys.readouterr().err.startswith("agentddl: diff takes OLD NEW")
