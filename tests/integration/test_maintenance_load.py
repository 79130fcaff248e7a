"""Partition maintenance never stalls the queue: `CALL maintain_partitions(...)` runs under
trace's workload (claims, step writes, reads through the named queries), once with
nothing else going on and once while a report's transaction that read runs and events
stays open (the lock an earlier, single-transaction maintenance queued behind for
seconds, with every claim and step write queued behind it). Claims and step writes must
never wait on it longer than the bound; a job that does hold a strong lock that long is
caught by the same measurement. The bound comes from the run itself (the workload's own
claims and step writes just before the job: tests/maintenance_load.py), so a loaded
machine's slower statements are not taken for a stall. The benchmark does the same at
1,000,000 events (tests/benchmarks/retention_bench.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from maintenance_load import bound_ms, measure
from profiles import with_version

from agentddl.checks.db import PostgresServer, connect
from agentddl.checks.trace.scratch import scratch_with_schema
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_default_profile

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
    assert result.worst_claim_or_step_ms < result.bound_ms, (result.bound_ms, result.waits_ms)
    after = partitions(dsn)
    assert after - before  # the runway moved on
    if not reader:  # with a reader in the way, dropping may be left for the next run
        assert before - after


def test_a_job_holding_a_strong_lock_is_caught(
    pg_server_latest: PostgresServer, seeded: tuple[str, SchemaModel]
) -> None:
    """The measurement's teeth: a maintenance that holds a lock on runs that every write
    queues behind (EXCLUSIVE: reads go on, so each workload session soon waits on a claim
    or a step write), as the single-transaction one did while it detached, dropped and
    waited, is over the bound. It holds the lock until every workload session waits on
    it, then three bounds longer (the bound of this run: its floor is measured first)."""
    dsn, model = seeded
    connections = 3

    def job(floor_ms: float) -> list[str]:
        hold = 3 * bound_ms(floor_ms) / 1000
        return [
            "BEGIN",
            "LOCK TABLE agent.runs IN EXCLUSIVE MODE",
            WAIT_FOR_WAITERS.format(connections=connections),
            f"SELECT pg_sleep({hold:.3f})",
            "COMMIT",
        ]

    result = measure(dsn, pg_server_latest.version, model, job, connections=connections, settle=0.5)
    assert not result.failed, [s.error for s in result.statements]
    assert result.worst_claim_or_step_ms >= result.bound_ms, (result.bound_ms, result.waits_ms)


# Until `connections` sessions wait on a lock on runs (a minute at most: then the
# assertion says what was seen).
WAIT_FOR_WAITERS = """DO $$
BEGIN
    WHILE (SELECT count(*) FROM pg_catalog.pg_locks
           WHERE relation = 'agent.runs'::regclass AND NOT granted) < {connections}
          AND pg_catalog.clock_timestamp() < pg_catalog.statement_timestamp() + interval '1 minute' LOOP
        PERFORM pg_catalog.pg_sleep(0.005);
    END LOOP;
END
$$"""
