"""The Citus rendering (distribution: citus) keeps every guarantee on plain PostgreSQL:
the tenant-scoped claim, relay and the Citus forms of expire_leases / fail_attempt /
transition_run / fail_delivery, for every lock strategy. (No Citus server exists here:
what Citus itself does with these statements is checked statically, by verify --citus.)"""

from __future__ import annotations

from dataclasses import replace

import pytest
from profiles import example_profiles, with_strategy, with_version

from agentddl.checks.db import PostgresServer
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.generator.profile import LockStrategy
from agentddl.generator.profile.model import Distribution

# the scenarios whose queries the Citus rendering changes: the claim (and its takeover), the
# relay, fail_delivery, transition_run, fail_attempt, and every query named by another tenant
SCENARIOS = ("claim_race", "crash_mid_step", "outbox", "poison_message", "tenant_isolation", "version_races")
SMALL = ProveOptions(runs=30, lease_seconds=1, scenarios=SCENARIOS)


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_every_scenario_holds_with_the_tenant_scoped_claim(
    pg_server_latest: PostgresServer, prove_pool: Pool, strategy: LockStrategy
) -> None:
    base = with_strategy(example_profiles()["default"], strategy)
    profile = base.model_copy(update={"distribution": Distribution(engine="citus")})
    options = replace(SMALL, workers=prove_pool.size)
    request = ProveRequest(
        with_version(profile, pg_server_latest.version), options, server=pg_server_latest.admin_dsn
    )
    report = run(request, pool=prove_pool)
    assert [s.name for s in report.scenarios] == list(SCENARIOS)
    assert report.held, [(s.name, s.violations) for s in report.scenarios if s.violations]
    counts = {s.name: s.counts for s in report.scenarios}
    assert counts["claim_race"]["claims"] == counts["claim_race"]["runs_completed"] == SMALL.runs
    assert counts["outbox"]["consumer_after_dedupe"] == counts["outbox"]["messages"] > 0
    assert counts["poison_message"]["dead_lettered"] == 2 and counts["poison_message"]["refusals"] >= 2
    assert counts["tenant_isolation"]["probes"] > 0 and counts["tenant_isolation"]["probe_leaks"] == 0
