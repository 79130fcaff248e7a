"""prove's failover scenario on an embedded server it starts and a streaming replica of
it: with synchronous replication the promoted replica has every commit a worker was told
about, on each lock strategy (the old primary runs again between strategies); with
asynchronous replication, a replica 300 ms behind, the acknowledged commits it never
received are reported lost (ADP118), with the lag that lost them."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.prove.scenarios.failover import PAUSE_SECONDS
from agentddl.generator.profile import LockStrategy, load_default_profile

FAILOVER = ProveOptions(runs=200, lease_seconds=1, scenarios=("failover",))


def test_a_synchronous_replica_promoted_mid_workload_has_every_acknowledged_commit(prove_pool: Pool) -> None:
    options = replace(FAILOVER, workers=prove_pool.size)
    report = run(
        ProveRequest(load_default_profile(), options, strategies=tuple(LockStrategy)), pool=prove_pool
    )
    assert [(s.strategy, s.name) for s in report.scenarios] == [(s.value, "failover") for s in LockStrategy]
    for scenario in report.scenarios:
        counts = scenario.counts
        assert scenario.held, (scenario.strategy, scenario.violations)
        assert counts["synchronous"] is True and counts["faults"] == 1 and counts["faults_missed"] == 0
        # it exercised what it guards: commits acknowledged before and after the promotion,
        # the claim from before it presented to the new primary and refused
        assert counts["acknowledged_steps"] > 0 and counts["acknowledged_completions"] > 0
        assert counts["stale_claim_untested"] == 0 and counts["stale_writes_accepted"] == 0
        # the commits made while the primary sent no WAL waited for the replica, unacknowledged,
        # until the kill cut them off
        assert counts["cut_off_statements"] > 0, counts
        assert counts["lag_seconds_at_failover"] >= PAUSE_SECONDS * 0.9, counts
        assert counts["promotion_seconds"] > 0


def test_an_asynchronous_replica_loses_acknowledged_commits_and_is_reported_broken(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)  # else it is the --dsn to prove in
    argv = ["prove", "--profile", str(ROOT / "schemas" / "default.yaml"), "--scenario", "failover"]
    argv += ["--workers", "3", "--runs", "200", "--lease-seconds", "1", "--format", "json"]
    code = main([*argv, "--replication", "async"])
    report = json.loads(capsys.readouterr().out)
    (scenario,) = report["scenarios"]
    assert code == 1 and not scenario["held"] and scenario["synchronous"] is False
    assert scenario["lost_acknowledged_steps"] + scenario["lost_acknowledged_completions"] > 0, scenario
    # the replica was behind by what the primary acknowledged while it sent no WAL
    assert (
        scenario["lag_bytes_at_failover"] > 0 and scenario["lag_seconds_at_failover"] >= PAUSE_SECONDS * 0.9
    )
    assert [f["code"] for f in report["findings"]] == ["ADP118"]


def test_replication_is_sync_or_async(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["prove", "--profile", str(ROOT / "schemas" / "default.yaml"), "--scenario", "failover"]
    assert main([*argv, "--replication", "semi"]) == 2
    assert "'semi' is not one of 'sync', 'async'" in capsys.readouterr().err
