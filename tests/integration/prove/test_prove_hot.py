"""prove with the hot projection in Redis (hot_state.store: redis), on a real PostgreSQL
and a real redis-server: the hot scenarios hold on the generated module and show what
they exercised, the totals stay at zero, and each guard of the module, taken away, is
reported broken for the right reason. The lease is measured (tests/measured_lease.py): a
healthy holder whose lease lapses counts against hot_flush, so a loaded machine's stalls
must not outlast it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hot_weakenings import HOT_WEAKENINGS, HotWeakening
from measured_lease import lease_seconds
from profiles import ROOT, example_profiles, with_version

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer, connect
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.redis_server import redis_client
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.prove.report import findings
from agentddl.checks.prove.scenarios import HOT_SCENARIOS
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile
from agentddl.generator.render.hot import render_module

PROFILES = example_profiles()
SMALL = ProveOptions(runs=30)  # workers: the pool's; lease_seconds: measured
HOT = {"store": "redis", "running_ttl": 120}


def hot(profile: Profile, server: PostgresServer) -> Profile:
    profile = with_version(profile, server.version)
    return profile.model_copy(update={"hot_state": profile.hot_state.model_copy(update=HOT)})


def test_every_hot_scenario_holds_and_the_totals_stay_at_zero(
    pg_server_latest: PostgresServer, prove_pool: Pool
) -> None:
    profile = hot(PROFILES["default"], pg_server_latest)
    lease = lease_seconds(pg_server_latest)
    options = replace(SMALL, workers=prove_pool.size, lease_seconds=lease, scenarios=HOT_SCENARIOS)
    report = run(ProveRequest(profile, options, server=pg_server_latest.admin_dsn), pool=prove_pool)
    assert report.held, [(s.name, s.violations) for s in report.scenarios if s.violations]
    counts = {s.name: s.counts for s in report.scenarios}
    assert list(counts) == list(HOT_SCENARIOS)
    stale = counts["hot_stale_writer"]
    assert stale["stale_writes_attempted"] == 4 * stale["runs"] and stale["cancelled"] >= 1
    assert counts["hot_expiry"]["keys_seen"] >= 2 and counts["hot_expiry"]["crashes"] >= 1
    assert counts["hot_flush"]["losses"] == 2 and counts["hot_flush"]["projections_rebuilt"] >= 1
    assert counts["hot_tenant_read"]["probes"] == 5 and counts["hot_tenant_read"]["other_tenant_probed"]
    totals = report.to_json()["totals"]
    assert totals["runs_completed"] > 0
    zero = ("duplicate_effects", "lost_runs", "stuck_runs", "stale_writes_accepted")
    assert all(totals[k] == 0 for k in zero)


@pytest.mark.parametrize("name", ["newest-engine", "single-tenant"])
def test_the_read_path_and_fencing_hold_under_rls_and_single_tenant(
    pg_server_latest: PostgresServer, prove_pool: Pool, name: str
) -> None:
    profile = hot(PROFILES[name], pg_server_latest)
    lease, scenarios = lease_seconds(pg_server_latest), ("hot_stale_writer", "hot_tenant_read")
    options = replace(SMALL, workers=prove_pool.size, lease_seconds=lease, scenarios=scenarios)
    report = run(ProveRequest(profile, options, server=pg_server_latest.admin_dsn), pool=prove_pool)
    assert report.held, [(s.name, s.violations) for s in report.scenarios if s.violations]
    probes = next(s for s in report.scenarios if s.name == "hot_tenant_read").counts
    assert probes["other_tenant_probed"] is (profile.tenancy.column is not None)


@pytest.mark.parametrize("weakening", HOT_WEAKENINGS, ids=lambda w: f"{w.scenario}:{w.name}")
def test_a_weakened_hot_state_module_is_reported_broken(
    pg_server_latest: PostgresServer, prove_pool: Pool, weakening: HotWeakening
) -> None:
    profile = hot(PROFILES["default"], pg_server_latest)
    model = derive(profile)
    lease = lease_seconds(pg_server_latest)
    stall = 2.0 * lease  # short: it can only end a weakened run sooner
    options = replace(
        SMALL, workers=prove_pool.size, lease_seconds=lease, scenarios=(weakening.scenario,), stall=stall
    )
    with pg_server_latest.scratch_database() as dsn:
        with connect(dsn, autocommit=True) as conn:
            install_schema(conn, model)
        text = weakening.apply(render_module(model))
        report = run(ProveRequest(profile, options, dsn=dsn, hot_state_text=text), pool=prove_pool)
    (result,) = report.scenarios
    assert not result.held, f"{weakening.name}: reported held: {result.counts}"
    assert any(result.counts.get(key) for key in weakening.expect), (weakening.name, result.counts)
    (finding,) = findings(report)
    assert finding.object == f"skip_locked/{weakening.scenario}"
    assert any(f"{key}=" in finding.message for key in weakening.expect), finding.message


def test_a_hot_scenario_needs_the_hot_store(
    pg_server_latest: PostgresServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    argv = ["prove", "-p", str(ROOT / "schemas" / "default.yaml"), "--server", pg_server_latest.admin_dsn]
    assert main([*argv, "--scenario", "hot_flush"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "agentddl: scenario 'hot_flush' needs a profile with hot_state.store: redis "
        "(profile 'default' keeps its hot state in PostgreSQL)"
    ]


def test_a_given_redis_keeps_what_is_not_provess(
    pg_server_latest: PostgresServer,
    redis_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--redis: the loss hot_flush stages deletes prove's own keys only; the JSON report."""
    monkeypatch.delenv("AGENTDDL_DSN", raising=False)
    client = redis_client(redis_url)
    client.flushdb()  # the session's Redis: other tests' killed workers leave keys until their TTL
    client.set("someone:else", "kept")
    profile = tmp_path / "hot.yaml"
    profile.write_text("profile: 1\nname: hot\nhot_state: {store: redis}\n")
    argv = ["prove", "-p", str(profile), "--server", pg_server_latest.admin_dsn, "--redis", redis_url]
    lease = str(lease_seconds(pg_server_latest))
    small = ["--workers", "2", "--runs", "10", "--lease-seconds", lease, "--format", "json"]
    assert main([*argv, *small, "--scenario", "hot_flush"]) == 0
    report = json.loads(capsys.readouterr().out)
    (scenario,) = report["scenarios"]
    assert scenario["held"] and scenario["losses"] == 2
    assert client.get("someone:else") == b"kept"
    assert client.keys("agent:run:*") == []  # prove deleted what it wrote
    client.delete("someone:else")
    client.close()
