"""The soak's judgement on per-minute rows (steady holds; falling throughput, rising p99
and a growing live table break it), its intervals and usage errors, and its rows in the
report's text and markdown."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.core.report import render
from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.report import build_report
from agentddl.checks.prove.result import ProveResult
from agentddl.checks.prove.rules import finding_of
from agentddl.checks.prove.scenarios.base import verdict
from agentddl.checks.prove.soak import SCENARIO, boundaries, journal_errors, validate_soak
from agentddl.checks.prove.soak_stats import interval_rows, judge, percentile
from agentddl.generator.errors import AgentDDLError

PROFILE = str(Path(__file__).resolve().parents[3] / "schemas" / "default.yaml")


def stats(live_bytes: int, index_bytes: int = 16384) -> dict[str, Any]:
    table = {"bytes": live_bytes, "index_bytes": index_bytes, "live_tuples": 400, "dead_tuples": 900}
    return {
        "tables": {"run_queue": {**table, "autovacuums": 3}, "runs": {**table, "autovacuums": 0}},
        "indexes": {"run_queue_pkey": index_bytes // 2, "run_queue_visible_idx": index_bytes // 2},
    }


def minutes(
    rates: list[float], p99s: list[float], sizes: list[int], indexes: list[int] | None = None
) -> list[dict[str, Any]]:
    indexes = indexes or [16384] * len(rates)
    return [
        {"minute": n + 1, "runs_per_second": rate, "p99_ms": p99, **stats(size, index)}
        for n, (rate, p99, size, index) in enumerate(zip(rates, p99s, sizes, indexes, strict=True))
    ]


def broken(counts: dict[str, Any]) -> list[str]:
    return [
        key
        for key in ("throughput_degraded", "p99_degraded", "live_table_grew", "live_indexes_grew")
        if counts[key]
    ]


def test_a_steady_soak_holds() -> None:
    counts = judge(minutes([90, 200, 195, 190], [80, 40, 42, 47], [600_000, 620_000, 640_000, 640_000]))
    assert broken(counts) == []
    assert counts["throughput_last_to_second"] == 0.95 and counts["p99_last_to_second"] == 1.175
    assert counts["live_table_growth"] == round(640_000 / 600_000, 3)


def test_the_first_minute_is_warm_up_the_second_the_baseline() -> None:
    # a slow first minute (cold caches, no vacuum yet) is not a degradation; the indexes
    # fill to their steady size once autovacuum has run: judged from the second minute
    rows = minutes([20, 200, 200], [500, 40, 40], [100_000, 150_000, 150_000], [16384, 40000, 60000])
    assert broken(judge(rows)) == []
    assert judge(rows)["live_index_growth_from_second"] == 1.5


@pytest.mark.parametrize(
    ("rates", "p99s", "sizes", "indexes", "expected"),
    [
        ([200, 200, 160], [40, 40, 40], [1, 1, 1], None, ["throughput_degraded"]),
        ([200, 200, 200], [40, 40, 49], [1, 1, 1], None, ["p99_degraded"]),
        ([200, 200, 200], [40, 40, 40], [100_000, 150_000, 210_000], None, ["live_table_grew"]),
        ([200, 200, 200], [40, 40, 40], [1, 1, 1], [16384, 20000, 40001], ["live_indexes_grew"]),
        (
            [200, 150, 100],
            [40, 60, 90],
            [100_000, 250_000, 400_000],
            None,
            ["throughput_degraded", "p99_degraded", "live_table_grew"],
        ),
    ],
)
def test_a_soak_that_slows_or_grows_is_broken(
    rates: list[float], p99s: list[float], sizes: list[int], indexes: list[int] | None, expected: list[str]
) -> None:
    assert broken(judge(minutes(rates, p99s, sizes, indexes))) == expected


def test_the_bars_are_the_issues() -> None:
    # exactly 1.2x worse and exactly 2x the size still hold; a little more does not
    assert broken(judge(minutes([240, 240, 200], [40, 40, 48], [100, 150, 200]))) == []
    assert broken(judge(minutes([240, 240, 199], [40, 40, 48.1], [100, 150, 201]))) == [
        "throughput_degraded",
        "p99_degraded",
        "live_table_grew",
    ]


def test_rows_carry_rate_and_nearest_rank_percentiles_per_interval() -> None:
    times = [[0.001 * n for n in range(1, 101)], [0.002] * 50, []]
    rows = interval_rows([10.0, 20.0, 25.0], times, [stats(1), stats(2), stats(3)])
    assert [r["runs_completed"] for r in rows] == [100, 50, 0]
    assert [r["runs_per_second"] for r in rows] == [10.0, 5.0, 0.0]
    assert [r["seconds"] for r in rows] == [10.0, 10.0, 5.0]
    assert rows[0]["p99_ms"] == 99.0 and rows[0]["p50_ms"] == 50.0 and rows[2]["p99_ms"] == 0.0
    assert rows[2]["tables"]["run_queue"]["bytes"] == 3
    assert percentile([3.0, 1.0, 2.0], 0.99) == 3.0 and percentile([], 0.99) == 0.0


def test_intervals_are_minutes_and_the_last_may_be_shorter() -> None:
    assert boundaries(ProveOptions(soak_minutes=3)) == [60.0, 120.0, 180.0]
    assert boundaries(ProveOptions(soak_minutes=0.3, soak_interval_seconds=5)) == [5.0, 10.0, 15.0, 18.0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ProveOptions(soak_minutes=2), "at least 3 intervals of 60 s"),
        (ProveOptions(soak_minutes=0), "must be more than 0"),
        (ProveOptions(soak_minutes=5, scenarios=("claim_race",)), "not with --scenario"),
    ],
)
def test_a_soak_too_short_to_judge_is_a_usage_error(options: ProveOptions, message: str) -> None:
    with pytest.raises(AgentDDLError, match=message):
        validate_soak(options)


def test_the_cli_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "-p", PROFILE, "--soak", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentddl: --soak 1: at least 3 intervals") and "Traceback" not in err


def test_journal_errors_are_counted_without_parsing(tmp_path: Path) -> None:
    lines = [
        {"kind": "error", "scenario": "soak", "sqlstate": "40001"},
        {"kind": "claimed", "scenario": "soak", "what": "error"},
        {"kind": "error", "scenario": "claim_race"},
        {"kind": "error", "scenario": "soak", "sqlstate": "57014"},
    ]
    (tmp_path / "worker-0-1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert journal_errors(str(tmp_path)) == 2


def soak_result(rows: list[dict[str, Any]]) -> ProveResult:
    counts = {
        "runs": 10,
        "runs_completed": 10,
        **judge(rows),
        "lost_runs": 0,
        "errors": 0,
        "worker_failures": 0,
    }
    result = verdict("soak", "skip_locked", counts, SCENARIO.guarded)
    result.series = [{**r, "seconds": 60.0, "runs_completed": 10, "p50_ms": 1.0} for r in rows]
    run = {"profile": "default", "strategies": ["skip_locked"], "postgres": [16], "workers": 2, "runs": 10}
    return ProveResult([result], 200.0, run)


def test_a_broken_soak_is_an_adp116_finding_with_its_minutes_in_every_format() -> None:
    result = soak_result(minutes([200, 200, 100], [40, 40, 40], [100, 100, 300]))
    (scenario,) = result.scenarios
    finding = finding_of(scenario)
    assert finding is not None and finding.code == "ADP116"
    assert "throughput_degraded=1" in finding.message and "live_table_grew=1" in finding.message
    report = build_report(result)
    text, markdown = io.StringIO(), io.StringIO()
    render(report, "text", text)
    render(report, "markdown", markdown)
    for out in (text.getvalue(), markdown.getvalue()):
        assert "soak: per minute" in out and "run_queue_visible_idx" in out and "dead tuples" in out
        assert "throughput 0.5x" in out and "table 3.0x its size after minute 1" in out
    payload = json.loads(_rendered(report, "json"))
    assert [m["minute"] for m in payload["scenarios"][0]["minutes"]] == [1, 2, 3]


def test_a_steady_soak_reports_nothing() -> None:
    result = soak_result(minutes([200, 200, 200], [40, 40, 40], [100, 100, 100]))
    assert result.held and finding_of(result.scenarios[0]) is None


def _rendered(report: Any, output_format: str) -> str:
    out = io.StringIO()
    render(report, output_format, out)
    return out.getvalue()
