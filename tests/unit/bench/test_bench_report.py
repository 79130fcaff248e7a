"""A bench result in every format: the ratios a reader compares, the per-operation
costs, how they move with history, and the server's durability said plainly."""

from __future__ import annotations

import io
import json

import pytest

from agentddl.checks.bench.figures import Figures, PathResult
from agentddl.checks.bench.options import BenchOptions
from agentddl.checks.bench.paths import WORKLOADS
from agentddl.checks.bench.report import build_report
from agentddl.checks.bench.result import BenchResult, HistoryResult, ServerFacts
from agentddl.checks.core.report import FORMATS, render


def fig(name: str, rate: float, cpu: float = 0.5, p50: float = 2.0, errors: int = 0) -> Figures:
    return Figures(name, int(rate * 10), rate, p50, p50 * 4, 1000.0, 0.25, 9.0, cpu, cpu * 1.2, errors=errors)


def history(size: int, cpu: float, p50: float) -> HistoryResult:
    segments = [
        fig("floor", 1000),
        fig("floor2", 480),
        fig("claim_complete", 300, cpu, p50),
        fig("floor2", 520),
        fig("floor", 1000),
        fig("heartbeat", 800),
        fig("floor", 1000),
    ]
    paths = [
        PathResult(WORKLOADS["claim_complete"], segments[2], 1000.0, 500.0, 0.25),
        PathResult(WORKLOADS["heartbeat"], segments[5], 1000.0),
    ]
    return HistoryResult(size, {"runs": size // 10, "events": size, "outbox": 0}, segments, paths, 12.0)


def result(durable: bool = True, errors: int = 0) -> BenchResult:
    settings = {"fsync": "on" if durable else "off", "synchronous_commit": "on"}
    facts = ServerFacts(
        15, "127.0.0.1:5432/x", True, settings, "ext4", [] if durable else ["fsync=off"], "/proc", True
    )
    histories = [history(10_000, 1.0, 2.0), history(1_000_000, 1.5, 2.2)]
    if errors:
        histories[0].segments[2] = fig("claim_complete", 300, errors=errors)
    return BenchResult("default", facts, BenchOptions(histories=(10_000, 1_000_000)), histories, 61.0)


def rendered(res: BenchResult, fmt: str) -> str:
    out = io.StringIO()
    render(build_report(res), fmt, out)
    return out.getvalue()


def test_ratios_per_path() -> None:
    claim = result().histories[0].paths[0]
    assert claim.ratio == pytest.approx(0.3)
    assert claim.ratio_per_commit == pytest.approx(0.6)
    assert claim.ratio_two_commit == pytest.approx(0.6)
    assert claim.cpu_per_commit_ratio == pytest.approx(1.0 / (2 * 0.25))
    assert result().histories[0].paths[1].ratio_two_commit is None
    assert result().histories[0].paths[1].cpu_per_commit_ratio is None  # no floor CPU known


def test_markdown_has_a_table_per_history_and_the_scaling_table() -> None:
    text = rendered(result(), "markdown")
    assert "### history 10,000 (runs 1,000, events 10,000): 12 s" in text
    assert "| workload | commits | ops/s | x floor | per commit | x floor2 |" in text
    assert "| claim + complete | 2 | 300 | 0.30 | 0.60 | 0.60 | 2.00 | 8.00 | 1,000 | 0.25 | 1.000 |" in text
    assert "| floor: 1 commit | 1 | 1,000 | 1.00 | 1.00 |" in text
    assert "| floor: 2 commits | 2 | 500 | 0.50 | 1.00 |" in text
    assert (
        "floor: 1 commit: 3 measurements, 1,000-1,000 commits/s; floor: 2 commits: 2 measurements, 480-520"
        in text
    )
    assert "| claim + complete | 1.000 | 1.500 | 1.50 | 2.00 | 2.20 | 1.10 |" in text
    assert "`fsync=on`" in text


def test_json_carries_every_figure() -> None:
    doc = json.loads(rendered(result(), "json"))
    assert doc["tool"] == "bench" and doc["findings"] == []
    assert doc["history"] == [10_000, 1_000_000]
    path = doc["histories"][0]["paths"][0]
    assert path["path"] == "claim_complete"
    assert (path["ratio"], path["ratio_per_commit"], path["ratio_two_commit_floor"]) == (0.3, 0.6, 0.6)
    assert path["wal_bytes_per_op"] == 1000.0 and path["cpu_ms_per_op"] == 1.0
    assert doc["scaling"][0]["cpu_growth"] == 1.5
    assert doc["settings"]["durable"] is True


def test_text_shows_the_tables_and_a_summary() -> None:
    text = rendered(result(), "text")
    assert "claim + complete" in text and "per operation, from the smallest history" in text
    assert text.strip().splitlines()[-1] == (
        "bench: 2 hot paths at 2 history sizes on PostgreSQL 15 in 61 s; "
        "the durable-commit floor: 1,000 commits/s."
    )


def test_a_server_that_is_not_durable_and_failed_operations_are_said() -> None:
    summary = build_report(result(durable=False, errors=3)).summary_line()
    assert "(NOT durable: fsync=off)" in summary
    assert "3 operations failed" in summary
    assert build_report(result(durable=False)).about["durable"] == "NO: fsync=off"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_and_exits_0(fmt: str) -> None:
    text = rendered(result(), fmt)
    assert text if fmt != "github" else text == ""  # github: annotations of findings, and there are none
    assert build_report(result()).exit_code == 0
