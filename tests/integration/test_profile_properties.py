"""Every valid profile passes its own checks: hypothesis draws profiles across every key's
range (engine, schema, tenancy, volume, retention and its manager, runway, lock
strategy, lease, outbox, payload limits, role names), keeps the valid ones, and each
must go through generate -> apply -> verify -> audit (small volume) -> a short prove
with no finding.

The suite runs a few examples, the same ones every time (derandomized, Hypothesis pinned
in pyproject.toml), to stay fast, and always the corners (CORNERS, @example): each lock
strategy once, with tenancy and row-level security, pg_partman retention, another schema
name and single-tenant spread across them. `make property-profiles` runs many more,
drawn afresh (AGENTDDL_PROPERTY_EXAMPLES=<n>, AGENTDDL_PROPERTY_FRESH=1; pytest's
--hypothesis-seed replays a run), the corners too. A drawn engine newer than the newest
tested server is skipped by assume().
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from measured_lease import lease_seconds
from pydantic import ValidationError

from agentddl.checks.audit import AuditOptions, audit_database
from agentddl.checks.audit.session import audit_paths
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed import seed_model
from agentddl.checks.prove import Pool, ProveOptions, ProveRequest, run
from agentddl.checks.verify import make_context, run_rules
from agentddl.checks.verify.reference import read_reference
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.model import derive
from agentddl.generator.profile import LockStrategy, Profile

EXAMPLES = int(os.environ.get("AGENTDDL_PROPERTY_EXAMPLES", "2"))
FRESH = os.environ.get("AGENTDDL_PROPERTY_FRESH") == "1"  # draw anew (else the same examples each run)
NEWEST = 18
AUDIT_EVENTS = 3_000
# A short prove: every scenario that needs no lease to run out or worker to die (those
# are proven per strategy in tests/integration/prove).
PROVE = ProveOptions(  # lease_seconds: measured (tests/measured_lease.py)
    runs=8,
    scenarios=(
        "claim_race",
        "stale_writer",
        "forged_lease",
        "idempotency",
        "tenant_isolation",
        "version_races",
    ),
)

DURATIONS = ["1h", "6h", "1d", "3d", "7d", "14d", "30d", "90d", "365d"]
SIZES = ["1kB", "8kB", "64kB", "256kB", "1MB"]


@st.composite
def profile_data(draw: st.DrawFn, newest: int) -> dict[str, Any]:
    """A profile as a user would write it, every key drawn from its range."""
    column = draw(st.one_of(st.none(), st.sampled_from(["tenant_id", "org_id", "account"])))
    history = {key: draw(st.sampled_from(DURATIONS)) for key in ("events", "checkpoints", "outbox_delivered")}
    partman = draw(st.booleans()) and draw(st.booleans())  # a quarter: it needs Debian's 15
    data: dict[str, Any] = {
        "profile": 1,
        "name": "drawn",
        "engine": {"version": 15 if partman else draw(st.integers(14, newest))},
        "schema": draw(st.sampled_from(["agent", "wf", "runtime_x"])),
        "tenancy": {
            "column": column,
            "type": draw(st.sampled_from(["uuid", "bigint", "text"])),
            "row_level_security": column is not None and draw(st.booleans()),
            "on_tenant_delete": draw(st.sampled_from(["cascade", "restrict"])),
        },
        "volume": {
            "steps_per_second": draw(
                st.one_of(st.integers(1, 50), st.integers(50, 2_000), st.integers(2_000, 20_000))
            ),
            "runs_per_day": draw(st.integers(1, 5_000_000)),
            "checkpoint_bytes": draw(st.sampled_from(SIZES)),
            "events_per_step": draw(st.integers(1, 100)),
        },
        "retention": {
            **history,
            # runs outlive what is under them (a profile saying otherwise is refused: the unit tests)
            "runs": draw(st.sampled_from(DURATIONS[max(DURATIONS.index(d) for d in history.values()) :])),
            "partition_manager": "pg_partman" if partman else "builtin",
            "scheduler": draw(st.sampled_from(["external", "pg_cron"])),
            "runway": draw(st.integers(2, 60)),
        },
        "lock_strategy": draw(st.sampled_from(["skip_locked", "lease", "optimistic", "advisory"])),
        "lease": {
            "duration": draw(st.sampled_from(["3s", "10s", "60s", "5m", "1h"])),
            "max_attempts": draw(st.sampled_from([1, 2, 5, 20, 1000])),
        },
        "outbox": {
            "max_attempts": draw(st.integers(1, 1000)),
            "backoff": draw(st.sampled_from(["1s", "30s", "5m"])),
        },
        "payload": {
            "compression": draw(st.sampled_from(["lz4", "pglz", "none"])),
            "inline_limit": draw(st.sampled_from(SIZES)),
            "event_limit": draw(st.sampled_from(["512B", "4kB", "64kB"])),
            "outbox_limit": draw(st.sampled_from(SIZES)),
        },
    }
    if draw(st.booleans()):
        data["roles"] = {kind: f"drawn_{kind}" for kind in ("owner", "app", "relay", "readonly")}
    return data


def corner(
    lock_strategy: str, engine: int, schema: str, tenancy: dict[str, Any], **retention: Any
) -> dict[str, Any]:
    """A whole profile as profile_data draws one, every key set: a corner the suite always runs."""
    return {
        "profile": 1,
        "name": f"corner_{lock_strategy}",
        "engine": {"version": engine},
        "schema": schema,
        "tenancy": {"type": "uuid", "row_level_security": False, "on_tenant_delete": "cascade", **tenancy},
        "volume": {
            "steps_per_second": 200,
            "runs_per_day": 100_000,
            "checkpoint_bytes": "8kB",
            "events_per_step": 3,
        },
        "retention": {
            "events": "7d",
            "checkpoints": "3d",
            "outbox_delivered": "1d",
            "runs": "90d",
            "partition_manager": "builtin",
            "scheduler": "external",
            "runway": 7,
            **retention,
        },
        "lock_strategy": lock_strategy,
        "lease": {"duration": "60s", "max_attempts": 5},
        "outbox": {"max_attempts": 5, "backoff": "30s"},
        "payload": {
            "compression": "lz4",
            "inline_limit": "64kB",
            "event_limit": "4kB",
            "outbox_limit": "64kB",
        },
    }


# Each lock strategy once; across them: a tenant column under row-level security (twice,
# one of them under other role names), pg_partman's retention (on Debian's 15, as
# schemas/examples/partman.yaml), two other schema names, single-tenant, the oldest engine.
CORNERS = (
    corner("skip_locked", 18, "agent", {"column": "tenant_id", "row_level_security": True}),
    corner(
        "optimistic",
        15,
        "agent",
        {"column": "tenant_id", "type": "bigint"},
        partition_manager="pg_partman",
        scheduler="pg_cron",
        events="30d",
        checkpoints="14d",
        runs="365d",
    ),
    {
        **corner("advisory", 17, "wf", {"column": "org_id", "type": "text", "row_level_security": True}),
        "roles": {kind: f"corner_{kind}" for kind in ("owner", "app", "relay", "readonly")},
    },
    corner("lease", 14, "runtime_x", {"column": None}),
)


def valid(data: dict[str, Any]) -> Profile | None:
    try:
        return Profile.model_validate(data)
    except ValidationError:
        return None


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    started = Pool(3)
    try:
        yield started
    finally:
        started.close()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not FRESH,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=profile_data(NEWEST))
@example(data=CORNERS[0])
@example(data=CORNERS[1])
@example(data=CORNERS[2])
@example(data=CORNERS[3])
def test_every_valid_profile_passes_its_own_checks(
    data: dict[str, Any], pg_servers: Any, pg_server_latest: Any, pool: Pool
) -> None:
    profile = valid(data)
    assume(profile is not None)
    assert profile is not None
    partman = profile.retention.partition_manager == "pg_partman"
    server = pg_servers.get(15) if partman else pg_server_latest
    assume(server.version >= profile.engine.version)
    model = derive(profile)
    files = render_artifacts(profile)  # generate: every file renders
    assert {"schema.sql", "queries.sql", "PLAN.md"} <= set(files)
    with server.scratch_database() as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            install_schema(conn, model)  # apply
            reference = read_reference(conn, model, server.version)
            found = run_rules(conn, make_context(conn, None, model, reference))  # verify
            assert [f for f in found if f.severity != "info"] == [], found
        seed_model(dsn, model, AUDIT_EVENTS)
        with psycopg.connect(dsn) as conn:  # audit
            audited = audit_database(conn, model, audit_paths(model, ()), AuditOptions(hypopg=False))
        assert audited.passed, [f for f in audited.findings if f.is_error]
    options = ProveOptions(**{**PROVE.__dict__, "workers": pool.size, "lease_seconds": lease_seconds(server)})
    proven = run(ProveRequest(profile, options, server=server.admin_dsn), pool=pool)  # a short prove
    assert proven.held, [(s.name, s.violations) for s in proven.scenarios if not s.held]


def test_the_corners_are_valid_and_cover_every_lock_strategy() -> None:
    """The @example corners must not be skipped by assume(): each is a valid profile a
    tested server can run, and together they cover what CORNERS says."""
    profiles = [valid(data) for data in CORNERS]
    assert all(p is not None and p.engine.version <= NEWEST for p in profiles), profiles
    found = [p for p in profiles if p is not None]
    assert sorted(p.lock_strategy.value for p in found) == sorted(s.value for s in LockStrategy)
    assert any(p.tenancy.column and p.tenancy.row_level_security for p in found)
    assert any(p.retention.partition_manager == "pg_partman" for p in found)
    assert {p.schema_name for p in found} - {"agent"}
    assert any(p.tenancy.column is None for p in found)
