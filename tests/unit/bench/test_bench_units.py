"""bench's pure parts: the segment order, the figures and ratios, durability verdicts,
/proc readings, and the command line's usage errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from profiles import ROOT

from agentddl.checks.bench.figures import Figures, around, figures, percentile
from agentddl.checks.bench.observe import Delta, file_system_of, not_durable, process_cpu_ns
from agentddl.checks.bench.paths import FLOOR, FLOOR2, HOT_PATHS, WORKLOADS, hot_paths, segments
from agentddl.checks.bench.work import checkpoint_payloads
from agentddl.checks.bench.worker import Measured
from agentddl.checks.cli import main as cli
from agentddl.checks.cli.bench import parse_histories

EVERY_QUERY = frozenset(q for w in HOT_PATHS for q in w.queries)


def test_every_path_sits_between_two_floor_measurements() -> None:
    order = segments(hot_paths(EVERY_QUERY))
    assert [w.name for w in order] == [
        "floor",
        *("floor2", "claim_complete", "floor2", "floor"),
        *("claim_batch", "floor"),
        *("step", "floor", "heartbeat", "floor", "checkpoint_save", "floor"),
        *("checkpoint_read", "floor", "sweep", "floor"),
    ]
    for i, workload in enumerate(order):
        if not workload.is_floor:
            assert order[i - 1].is_floor and order[i + 1].is_floor


def test_a_path_whose_query_the_profile_lacks_is_left_out() -> None:
    without_sweep = EVERY_QUERY - {"expire_leases"}
    assert "sweep" not in [w.name for w in hot_paths(without_sweep)]
    assert [w.name for w in hot_paths(EVERY_QUERY, ("heartbeat",))] == ["heartbeat"]


def test_commits_per_operation() -> None:
    commits = {name: w.commits for name, w in WORKLOADS.items()}
    assert commits == {
        "floor": 1,
        "floor2": 2,
        "claim_complete": 2,
        "claim_batch": 2,
        "step": 3,
        "heartbeat": 1,
        "checkpoint_save": 1,
        "checkpoint_read": 1,
        "sweep": 1,
    }


def test_percentile_is_nearest_rank() -> None:
    values = [float(n) for n in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([7.0], 0.99) == 7.0
    assert percentile([], 0.5) is None


def delta(**changes: float | None) -> Delta:
    values: dict[str, float | str | None] = {
        "wal_from": "0/1000000",
        "wal_to": "0/1001000",
        "seconds": 10.0,
        "wal_bytes": 4000.0,
        "wal_records": 40.0,
        "wal_fpi": 2.0,
        "active_ms": 90.0,
        "commits": 20.0,
        "backends_cpu_ms": 30.0,
        "server_cpu_ms": 50.0,
    }
    values.update(changes)
    return Delta(**values)  # type: ignore[arg-type]


def test_figures_are_per_operation_and_rates_add_up_over_clients() -> None:
    clients = [
        Measured(ops=6, latencies=[0.001] * 5 + [0.010], seconds=2.0, cpu_seconds=0.004),
        Measured(
            ops=4,
            empty=3,
            errors=1,
            first_error="boom",
            latencies=[0.002] * 4,
            seconds=1.0,
            cpu_seconds=0.006,
        ),
    ]
    found = figures(WORKLOADS["claim_complete"], clients, delta())
    assert found.ops == 10
    assert found.ops_per_second == pytest.approx(3.0 + 4.0)
    assert found.wal_bytes_per_op == pytest.approx(400.0)
    assert found.wal_fpi_per_op == pytest.approx(0.2)
    assert found.cpu_ms_per_op == pytest.approx(3.0)
    assert found.server_cpu_ms_per_op == pytest.approx(5.0)
    assert found.client_cpu_ms_per_op == pytest.approx(1.0)
    assert found.p50_ms == pytest.approx(1.0)
    assert found.p99_ms == pytest.approx(10.0)
    assert (found.empty_claims, found.errors, found.first_error) == (3, 1, "boom")
    assert (found.wal_from, found.wal_to) == ("0/1000000", "0/1001000")


def test_without_local_backends_cpu_is_the_active_time() -> None:
    found = figures(
        FLOOR, [Measured(ops=10, latencies=[0.001] * 10, seconds=1.0)], delta(backends_cpu_ms=None)
    )
    assert found.cpu_ms_per_op == pytest.approx(9.0)
    assert figures(FLOOR, [Measured()], delta()).cpu_ms_per_op is None  # no operations: no per-op figure


def segment(name: str, rate: float) -> Figures:
    return Figures(name, int(rate), rate, 1.0, 2.0, 100.0, 0.1, 2.0, 0.1, 0.2)


def test_a_path_is_divided_by_the_floors_right_before_and_after_it() -> None:
    measured = [segment("floor", 100), segment("heartbeat", 90), segment("floor", 80), segment("sweep", 5)]
    assert around(measured, 1, "floor") == pytest.approx(90.0)
    assert around(measured, 3, "floor") == pytest.approx(80.0)  # only one floor around it
    assert around(measured, 1, "floor2") == 0.0
    assert around(measured, 1, "floor", "cpu_ms_per_op") == pytest.approx(0.1)


def test_durability_verdict() -> None:
    durable = {"fsync": "on", "full_page_writes": "on", "synchronous_commit": "on"}
    assert not_durable(durable, "ext4") == []
    assert not_durable(durable, None) == []
    assert not_durable({**durable, "fsync": "off", "synchronous_commit": "off"}, "xfs") == [
        "fsync=off",
        "synchronous_commit=off",
    ]
    assert not_durable(durable, "tmpfs") == ["the data directory is on tmpfs (fsync costs nothing)"]


def test_proc_readings_of_this_process() -> None:
    assert (process_cpu_ns(os.getpid()) or 0) > 0
    assert process_cpu_ns(2**22 + 12345) is None
    assert file_system_of("/proc/self") == "proc"
    assert file_system_of("/no/such/directory") is None


def test_checkpoint_payloads_have_the_profile_size_and_differ() -> None:
    payloads = checkpoint_payloads(16384, slot=3)
    assert len(set(payloads)) == len(payloads) > 1
    assert all(16384 <= len(p) < 16384 + 1024 for p in payloads)
    assert checkpoint_payloads(16384, slot=3) == payloads  # deterministic per client


def test_history_sizes_parse_as_lists_and_scientific_notation() -> None:
    assert parse_histories(["10000,1e6", "100_000", "10000"]) == (10_000, 100_000, 1_000_000)
    assert parse_histories([]) == ()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--history", "lots"], "--history 'lots': expected a row count"),
        (["--history", "1.5"], "--history '1.5'"),
        (["--clients", "0"], "--clients 0: at least 1"),
        (["--duration", "0"], "--duration 0.0: a positive number of seconds"),
        (["--path", "nope"], "unknown hot path 'nope'; expected one of claim_complete"),
        (["--dsn", "postgresql://x@h/db", "--history", "100"], "--dsn measures the history already"),
        (["--dsn", "postgresql://x@h/db", "--server", "postgresql://x@h/p"], "pass one or the other"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AGENTDDL_DSN", "AGENTDDL_SERVER"):
        monkeypatch.delenv(name, raising=False)
    code = cli.main(["bench", "--profile", str(ROOT / "schemas" / "default.yaml"), *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("agentddl: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_bench_needs_a_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench"]) == 2
    assert "Missing option '--profile'" in capsys.readouterr().err


def test_a_queries_file_that_cannot_be_read_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "-p", str(ROOT / "schemas" / "default.yaml"), "--queries", str(tmp_path / "none.sql")]
    assert cli.main(argv) == 2
    assert "cannot read" in capsys.readouterr().err


def test_only_the_floors_are_floors() -> None:
    assert FLOOR.is_floor and FLOOR2.is_floor
    assert not any(w.is_floor for w in HOT_PATHS)
