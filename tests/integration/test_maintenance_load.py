"""Partition maintenance never stalls the queue: `CALL maintain_partitions(...)` runs under
trace's workload (claims, step writes, reads through the named queries), once with
nothing else going on and once while a report's transaction that read runs and events
stays open (the lock an earlier, single-transaction maintenance queued behind for
seconds, with every claim and step write queued behind it). Claims and step writes must
never wait on it longer than the bound; a job that does hold a strong lock that long is
caught by the same measurement. The benchmark does the same at 1,000,000 events
(tests/benchmarks/retention_bench.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from maintenance_load import measure
from profiles import with_version

from agentddl.checks.db import PostgresServer, connect
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile

BOUND_MS = 50.0
EVENTS = 20_000


@pytest.fixture(scope="module")
def seeded(pg_server_latest: PostgresServer) -> Iterator[tuple[str, SchemaModel]]:
    """The default schema, events kept 14 days (the seeded window: a run dated a day ahead
    expires one partition of each history table and creates one), seeded."""
    profile = with_version(load_default_profile(), pg_server_latest.version)
    retention = profile.retention.model_copy(update={"events": 14 * 86400})
    model = derive(profile.model_copy(update={"retention": retention}))
    with scratch_with_schema(pg_server_latest, model, [], rows=EVENTS) as dsn:
        yield dsn, model


def partitions(dsn: str) -> set[str]:
    with connect(dsn) as conn:
        rows = conn.execute("SELECT inhrelid::regclass::text FROM pg_inherits").fetchall()
    return {row[0] for row in rows}


@pytest.mark.parametrize(("days", "reader"), [(1, 0.0), (2, 1.5)], ids=["quiet", "long-reader"])
def test_maintenance_never_stalls_claims_and_step_writes(
    pg_server_latest: PostgresServer, seeded: tuple[str, SchemaModel], days: int, reader: float
) -> None:
    dsn, model = seeded
    before = partitions(dsn)
    job = [f"CALL agent.maintain_partitions(now() + interval '{days} days')"]
    result = measure(
        dsn, pg_server_latest.version, model, job, connections=3, settle=0.5, reader_seconds=reader
    )
    assert not result.failed, [s.error for s in result.statements]
    assert result.calls_during > 0  # the workload ran while maintenance did
    assert result.worst_claim_or_step_ms < BOUND_MS, result.waits_ms
    after = partitions(dsn)
    assert after - before  # the runway moved on
    if not reader:  # with a reader in the way, dropping may be left for the next run
        assert before - after


def test_a_job_holding_a_strong_lock_is_caught(
    pg_server_latest: PostgresServer, seeded: tuple[str, SchemaModel]
) -> None:
    """The measurement's teeth: a maintenance that holds ACCESS EXCLUSIVE on runs for a
    moment (as the single-transaction one did while it detached, dropped and waited) is
    over the bound."""
    dsn, model = seeded
    job = ["BEGIN", "LOCK TABLE agent.runs IN ACCESS EXCLUSIVE MODE", "SELECT pg_sleep(0.3)", "COMMIT"]
    result = measure(dsn, pg_server_latest.version, model, job, connections=3, settle=0.5)
    assert result.worst_claim_or_step_ms >= BOUND_MS, result.waits_ms
