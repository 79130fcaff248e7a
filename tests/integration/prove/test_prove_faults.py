"""prove's fault scenarios on an embedded server it starts: every commit the server
acknowledged survives five crashes of the server (server_crash) and five pooler faults
(pooler_restart: PgBouncer killed and restarted, server sessions terminated) on each lock
strategy, and a server that acknowledges before its WAL is written
(synchronous_commit=off) is reported broken."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.prove.scenarios.faults import FAULTS
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.profile import LockStrategy, load_default_profile

CRASHING = ProveOptions(runs=200, lease_seconds=1, scenarios=("server_crash",))
FAULTY = replace(CRASHING, scenarios=("server_crash", "pooler_restart"))


def test_acknowledged_commits_survive_faults_on_every_strategy(prove_pool: Pool) -> None:
    options = replace(FAULTY, workers=prove_pool.size)
    request = ProveRequest(load_default_profile(), options, strategies=tuple(LockStrategy))
    report = run(request, pool=prove_pool)
    ran = [(s.strategy, s.name) for s in report.scenarios]
    assert ran == [(s.value, name) for s in LockStrategy for name in FAULTY.scenarios]
    for scenario in report.scenarios:
        assert scenario.held, (scenario.strategy, scenario.violations)
        counts = scenario.counts
        assert counts["faults"] == FAULTS and counts["faults_missed"] == 0
        # it exercised what it guards: steps and completions were acknowledged across the
        # crashes, and the claim from before the first crash was presented
        assert counts["acknowledged_steps"] > 0 and counts["acknowledged_completions"] > 0
        assert counts["stale_claim_untested"] == 0
        if scenario.name == "pooler_restart":  # both faults struck, in turn
            assert counts["pooler_restarts"] >= 2 and counts["sessions_terminated"] >= 1, counts


def test_a_server_that_acknowledges_before_writing_is_reported_broken(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)  # else it is the --dsn to prove in
    argv = ["prove", "--profile", str(ROOT / "schemas" / "default.yaml"), "--scenario", "server_crash"]
    argv += ["--workers", "3", "--runs", "200", "--lease-seconds", "1", "--format", "json"]
    code = main([*argv, "--server-setting", "synchronous_commit=off"])
    report = json.loads(capsys.readouterr().out)
    (scenario,) = report["scenarios"]
    assert code == 1 and not scenario["held"]
    assert scenario["lost_acknowledged_steps"] + scenario["lost_acknowledged_completions"] > 0, scenario
    assert [f["code"] for f in report["findings"]] == ["ADP115"]


@pytest.mark.parametrize("where", ["server", "dsn"])
def test_a_server_prove_did_not_start_is_never_crashed(where: str) -> None:
    request = ProveRequest(load_default_profile(), CRASHING, **{where: "postgresql://x@127.0.0.1:1/db"})
    with pytest.raises(AgentDDLError, match="injects faults into the server: it runs only on the embedded"):
        run(request)
