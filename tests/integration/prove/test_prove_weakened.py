"""Every scenario reports a deliberately weakened schema or queries.sql as broken, for
the right reason (the count that names the damage is not zero). The schema is installed
into a scratch database, weakened (prove_weakenings), and proven in place (--dsn)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from measured_lease import lease_seconds
from profiles import example_profiles, with_strategy, with_version
from prove_weakenings import (
    APPROVAL_TWICE,
    CLAIM_GUARDS_OFF,
    FORGED_LEASE,
    NO_BACKOFF,
    OWNER_BYPASSES_RLS,
    PARTS_FORGED_LEASE,
    POISON_UNBOUNDED,
    RLS_OFF,
    SESSION_TENANT,
    WEAKENINGS,
    Weakening,
)

from agentddl.checks.db import PostgresServer
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.prove.report import findings
from agentddl.generator.model import derive
from agentddl.generator.profile import LockStrategy, Profile

PROFILES = example_profiles()
# workers: the pool's; lease_seconds: measured (tests/measured_lease.py); stall: two
# leases. A short stall is safe here: it can only end a weakened run sooner, and what is
# left unfinished then counts against the weakened schema, never for it.
OPTIONS = ProveOptions(runs=30)
# Where a broken race shows in some races only: enough of them that missing every one
# is far less likely than one in a million.
SCALE = {"version_races": replace(OPTIONS, runs=400)}


def assert_broken(server: PostgresServer, pool: Pool, profile: Profile, weakening: Weakening) -> None:
    profile = with_version(profile, server.version)
    lease = lease_seconds(server)
    options = replace(
        SCALE.get(weakening.scenario, OPTIONS),
        workers=pool.size,
        lease_seconds=lease,
        stall=2.0 * lease,
        scenarios=(weakening.scenario,),
    )
    with server.scratch_database() as dsn:
        queries = weakening.install(derive(profile), dsn)
        report = run(ProveRequest(profile, options, dsn=dsn, queries_text=queries), pool=pool)
    (result,) = report.scenarios
    assert not result.held, f"{weakening.name}: reported held: {result.counts}"
    assert any(result.counts.get(key) for key in weakening.expect), (weakening.name, result.counts)
    (finding,) = findings(report)  # the scenario's rule, naming the counts that broke
    assert finding.object == f"{profile.lock_strategy.value}/{weakening.scenario}"
    assert any(f"{key}=" in finding.message for key in weakening.expect), finding.message


@pytest.mark.parametrize("weakening", WEAKENINGS, ids=lambda w: f"{w.scenario}:{w.name}")
def test_a_weakened_schema_is_reported_broken(
    pg_server_latest: PostgresServer, prove_pool: Pool, weakening: Weakening
) -> None:
    assert_broken(pg_server_latest, prove_pool, PROFILES["default"], weakening)


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_a_claim_without_its_guards_is_reported_broken(
    pg_server_latest: PostgresServer, prove_pool: Pool, strategy: LockStrategy
) -> None:
    profile = with_strategy(PROFILES["default"], strategy)
    assert_broken(pg_server_latest, prove_pool, profile, CLAIM_GUARDS_OFF[strategy.value])


def test_row_level_security_switched_off_is_reported_broken(
    pg_server_latest: PostgresServer, prove_pool: Pool
) -> None:
    assert_broken(pg_server_latest, prove_pool, PROFILES["newest-engine"], RLS_OFF)


# The guarantees of issue 14, each shown broken without its guard on every lock strategy
# (held with it: test_prove_scenarios). Pooler and owner leaks need row-level security.
ON_EVERY_STRATEGY = (
    ("default", FORGED_LEASE),
    ("default", POISON_UNBOUNDED),
    ("default", NO_BACKOFF),
    ("newest-engine", SESSION_TENANT),
    ("newest-engine", OWNER_BYPASSES_RLS),
    ("default", APPROVAL_TWICE),  # issue 15: a model part's guard
    ("default", PARTS_FORGED_LEASE),
)


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
@pytest.mark.parametrize("case", ON_EVERY_STRATEGY, ids=lambda c: f"{c[1].scenario}:{c[1].name}")
def test_each_new_guard_removed_is_reported_broken_on_every_strategy(
    pg_server_latest: PostgresServer, prove_pool: Pool, strategy: LockStrategy, case: tuple[str, Weakening]
) -> None:
    profile_name, weakening = case
    assert_broken(pg_server_latest, prove_pool, with_strategy(PROFILES[profile_name], strategy), weakening)
