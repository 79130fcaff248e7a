"""`agentddl bench` for seconds, not as a benchmark: every hot path runs through the
generated queries on a real server, is measured between two floors, and its figures
are the ones the workload must produce (WAL where it writes, none where it reads,
checkpoints of the profile's size, no failed operation)."""

from __future__ import annotations

import pytest
from profiles import example_profiles, with_version

from agentddl.checks.bench import BenchOptions, BenchRequest, BenchResult, Clients, build_report, run
from agentddl.checks.bench.observe import CPU_FROM_PROC, not_durable
from agentddl.checks.bench.paths import CLAIM_BATCH
from agentddl.checks.db import PostgresServer
from agentddl.generator.profile import load_default_profile

PROFILES = example_profiles()
SHORT = 0.2  # seconds per segment: a smoke test


def bench(server: PostgresServer, clients: Clients, **options: object) -> BenchResult:
    chosen = {"clients": 2, "duration": SHORT, "histories": (0,), "read_depth": 5, **options}
    profile = with_version(load_default_profile(), server.version)  # the default profile on this engine
    request = BenchRequest(profile, BenchOptions(**chosen), server=server.admin_dsn)  # type: ignore[arg-type]
    return run(request, clients=clients)


def test_every_hot_path_is_measured_between_two_floors(
    pg_server_latest: PostgresServer, bench_clients: Clients
) -> None:
    result = bench(pg_server_latest, bench_clients, histories=(300,))
    (history,) = result.histories
    assert history.history == 300 and history.rows["events"] == 300
    paths = {p.path.name: p for p in history.paths}
    assert list(paths) == [
        "claim_complete",
        "claim_batch",
        "step",
        "heartbeat",
        "checkpoint_save",
        "checkpoint_read",
        "sweep",
    ]
    assert [s.workload for s in history.segments].count("floor") == len(paths) + 1
    for segment in history.segments:
        assert segment.ops > 0, segment
        assert (segment.errors, segment.empty_claims) == (0, 0), segment.first_error
        assert segment.p50_ms is not None and segment.p99_ms is not None and segment.p50_ms <= segment.p99_ms
    for path in paths.values():
        assert path.floor > 0 and path.ratio > 0
    assert paths["claim_complete"].ratio_two_commit is not None and paths["step"].ratio_two_commit is None
    floor = history.floors()[0]
    # one small row updated, one inserted: a heap update, a heap and an index insert, the commit
    assert floor.wal_bytes_per_op and 100 < floor.wal_bytes_per_op < 2000
    assert floor.wal_records_per_op and floor.wal_records_per_op >= 3
    saved = paths["checkpoint_save"].figures.wal_bytes_per_op or 0.0
    assert saved > 2000  # a 16 kB agent state, compressed
    assert (paths["checkpoint_read"].figures.wal_bytes_per_op or 0.0) < saved / 10
    assert all(s.cpu_ms_per_op and s.cpu_ms_per_op > 0 for s in history.segments)
    assert all(s.client_cpu_ms_per_op and s.client_cpu_ms_per_op > 0 for s in history.segments)
    assert all(p.cpu_per_commit_ratio and p.cpu_per_commit_ratio > 0 for p in paths.values())
    single, batch = paths["claim_complete"].figures, paths["claim_batch"].figures
    # ten runs in two statements: the per-statement work is paid once for ten runs
    assert batch.cpu_ms_per_op and single.cpu_ms_per_op
    assert batch.cpu_ms_per_op / CLAIM_BATCH < single.cpu_ms_per_op
    assert_the_report_says_what_the_server_is(result, pg_server_latest)


def assert_the_report_says_what_the_server_is(result: BenchResult, server: PostgresServer) -> None:
    facts = result.server
    assert facts.version == server.version and not facts.embedded
    assert {"fsync", "synchronous_commit", "full_page_writes", "wal_level"} <= set(facts.settings)
    # the tests' embedded servers trade durability for speed (fsync off, in RAM): said so
    assert facts.not_durable == not_durable(facts.settings, facts.file_system)
    assert ("fsync=off" in facts.not_durable) == (facts.settings["fsync"] == "off")
    assert ("NOT durable" in build_report(result).summary_line()) == bool(facts.not_durable)
    assert facts.cpu_source == CPU_FROM_PROC  # the test server runs on this machine


@pytest.mark.parametrize("name", ["old-engine", "single-tenant", "lease", "newest-engine"])
def test_every_strategy_and_tenancy_claims_and_renews(
    pg_servers: object, bench_clients: Clients, name: str
) -> None:
    """optimistic + bigint tenants (14), single-tenant (15), lease (16), skip_locked (17),
    advisory + row-level security (18): each on its own engine."""
    profile = PROFILES[name]
    server = pg_servers.get(profile.engine.version)  # type: ignore[attr-defined]
    options = BenchOptions(clients=2, duration=SHORT, histories=(0,), paths=("claim_complete", "heartbeat"))
    result = run(BenchRequest(profile, options, server=server.admin_dsn), clients=bench_clients)
    for segment in result.histories[0].segments:
        assert segment.ops > 0 and segment.errors == 0, (segment.workload, segment.first_error)
        assert segment.wal_fpi_per_op is not None  # pg_stat_wal answered on every major
