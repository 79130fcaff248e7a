"""prove on a real PostgreSQL at small scale: every scenario holds on the generated
schema, for every lock strategy, and shows what it exercised (a scenario that ran
nothing would hold too, and prove nothing)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest
from profiles import example_profiles, with_strategy, with_version

from agentddl.checks.db import PostgresServer
from agentddl.checks.prove import SCENARIOS, Pool, ProveOptions, ProveRequest, ProveResult, run
from agentddl.checks.prove.runner import own_server_scenarios
from agentddl.generator.profile import LockStrategy, Profile

PROFILES = example_profiles()
SMALL = ProveOptions(runs=30, lease_seconds=1)  # workers: the pool's
# Each strategy on a differently shaped profile and server: uuid tenants; no tenant column
# (schema "workflow") on PostgreSQL 15; bigint tenants (old engine); row-level security.
PROFILE_OF = {
    LockStrategy.skip_locked: ("default", None),
    LockStrategy.lease: ("single-tenant", 15),
    LockStrategy.optimistic: ("old-engine", None),
    LockStrategy.advisory: ("newest-engine", None),
}


def small_prove(server: PostgresServer, pool: Pool, profile: Profile) -> ProveResult:
    options = replace(SMALL, workers=pool.size)
    request = ProveRequest(with_version(profile, server.version), options, server=server.admin_dsn)
    return run(request, pool=pool)


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_every_scenario_holds_on_the_generated_schema(
    pg_servers: Any, pg_server_latest: PostgresServer, prove_pool: Pool, strategy: LockStrategy
) -> None:
    name, major = PROFILE_OF[strategy]
    profile = with_strategy(PROFILES[name], strategy)
    own_server = os.environ.get("AGENTDDL_DSN")  # tests run on that server only
    server = pg_server_latest if major is None or own_server else pg_servers.get(major)
    report = small_prove(server, prove_pool, profile)
    assert report.run["postgres"] == [server.version]
    by_name = {s.name: s for s in report.scenarios}
    # every scenario but those that inject faults into the server: it is the tests', not prove's own
    assert list(by_name) == [name for name in SCENARIOS if name not in own_server_scenarios()]
    assert report.held, [(s.name, s.violations) for s in report.scenarios if s.violations]
    assert_exercised(by_name, profile)
    totals = report.to_json()["totals"]
    assert list(totals) == [
        "duplicate_effects",
        "lost_runs",
        "stuck_runs",
        "stale_writes_accepted",
        "lost_outbox",
        "duplicate_deliveries",
        "runs_completed",
        "seconds",
    ]
    assert totals["runs_completed"] >= SMALL.runs
    assert all(
        totals[k] == 0 for k in ("duplicate_effects", "lost_runs", "stuck_runs", "stale_writes_accepted")
    )


def assert_exercised(by_name: dict[str, Any], profile: Profile) -> None:
    counts = {name: s.counts for name, s in by_name.items()}
    assert counts["claim_race"]["claims"] == counts["claim_race"]["runs_completed"] == SMALL.runs
    assert counts["crash_mid_step"]["crashes"] >= 1
    assert counts["crash_mid_step"]["expired_attempts"] >= 1  # taken over by time
    assert counts["stale_writer"]["stale_writes_attempted"] == 7 * counts["stale_writer"]["runs"]
    # 8 writes of every attempt's work, and 4 of the model's parts (all on by default)
    assert counts["forged_lease"]["forged_writes_attempted"] == 12 * counts["forged_lease"]["runs"]
    assert counts["forged_lease"]["runs_held"] == counts["forged_lease"]["runs"] > 0
    assert counts["idempotency"]["effects"] == counts["idempotency"]["keys"] > 0
    assert counts["idempotency"]["conflicts"] > 0
    assert counts["outbox"]["consumer_after_dedupe"] == counts["outbox"]["messages"] > 0
    assert counts["outbox"]["relay_crashes_after_claim"] >= 1
    poison = counts["poison_message"]
    assert poison["dead_lettered"] == poison["poison"] == 2 and poison["refusals"] >= 2
    assert poison["relays_replaced"] >= 2  # the crashing message killed a relay per attempt
    assert counts["version_races"]["transitions_won"] == counts["version_races"]["runs"]
    assert counts["version_races"]["forbidden_attempted"] >= 3
    approvals = counts["approval_once"]  # every worker decided every approval; one won each
    assert approvals["decisions"] == approvals["approvals"] > 0
    isolation = counts["tenant_isolation"]
    if profile.tenancy.column is None:  # nothing to isolate
        assert isolation == {"applicable": False}
        return
    assert isolation["probes"] > 10 and isolation["deleted_tenant_rows"] > 7
    assert isolation["raw_sql_checked"] is profile.tenancy.row_level_security


@pytest.mark.parametrize(
    "strategy", [s for s in LockStrategy if s is not LockStrategy.advisory], ids=lambda s: s.value
)
def test_row_level_security_holds_pooled_and_for_the_owner_on_every_strategy(
    pg_server_latest: PostgresServer, prove_pool: Pool, strategy: LockStrategy
) -> None:
    """The row-level security profile runs advisory above; here the other strategies,
    tenant isolation only: a pooled connection's next transaction and the tables' owner
    see nothing of another tenant's (the counts that break without their guards)."""
    profile = with_strategy(PROFILES["newest-engine"], strategy)
    options = replace(SMALL, workers=prove_pool.size, scenarios=("tenant_isolation",))
    request = ProveRequest(
        with_version(profile, pg_server_latest.version), options, server=pg_server_latest.admin_dsn
    )
    (result,) = run(request, pool=prove_pool).scenarios
    assert result.held, result.violations
    assert result.counts["raw_sql_checked"] is True
    assert result.counts["pooled_session_leaks"] == result.counts["owner_leaks"] == 0
