"""A bench result as a `core.report.Report`: the run's facts, one table per history size
(the floors, then each hot path with its ratios and per-operation costs), and how the
per-operation figures move with history. Bench reports figures, not findings.

JSON: {"tool": "bench", <the run's facts>, "run": {...}, "settings": {...}, "histories":
[{"history", "rows", "seconds", "segments": [...], "paths": [{"path", "commits", "ratio",
"ratio_per_commit", "ratio_two_commit_floor", "ops_per_second", "p50_ms", "p99_ms",
"wal_bytes_per_op", "wal_fpi_per_op", "cpu_ms_per_op", ...}]}], "scaling": [...],
"findings": [], "summary": {...}}.
"""

from __future__ import annotations

from statistics import mean

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.bench.figures import Figures, PathResult
from agentddl.checks.bench.paths import FLOOR, FLOOR2
from agentddl.checks.bench.result import BenchResult, HistoryResult
from agentddl.checks.core.report import Report

COLUMNS = (
    "workload",
    "commits",
    "ops/s",
    "x floor",
    "per commit",
    "x floor2",
    "p50 ms",
    "p99 ms",
    "WAL B/op",
    "FPI/op",
    "CPU ms/op",
    "runs HOT %",
)


def build_report(result: BenchResult) -> Report:
    return Report(
        tool="bench",
        findings=[],
        about=result.run_facts(),
        details=result.to_json(),
        text_body=lambda console: write_tables(result, console),
        markdown_body=lambda: markdown(result),
        summary=summary(result),
    )


def summary(result: BenchResult) -> str:
    paths = len(result.histories[0].paths) if result.histories else 0
    floor = result.histories[0].floor_rate() if result.histories else 0.0
    sizes = len(result.histories)
    words = (
        f"bench: {paths} hot path{'s' * (paths != 1)} at {sizes} history size{'s' * (sizes != 1)} on "
        f"PostgreSQL {result.server.version} in {result.seconds:.0f} s; the durable-commit floor: "
        f"{floor:,.0f} commits/s"
    )
    if result.server.not_durable:
        words += " (NOT durable: " + "; ".join(result.server.not_durable) + ")"
    if result.errors:
        words += f"; {result.errors} operations failed (see first_error in --format json)"
    return words + "."


def rows(history: HistoryResult) -> list[list[str]]:
    """The floors (mean and range of their measurements), then each hot path."""
    found = []
    for workload in (FLOOR, FLOOR2):
        measured = history.floors(workload.name)
        if measured:
            found.append(_floor_row(workload.title, workload.commits, measured, history.floor_rate()))
    return found + [_path_row(p) for p in history.paths]


def floor_note(history: HistoryResult) -> str:
    """How much the floor moved between its measurements (the machine's own noise)."""
    said = []
    for workload, unit in ((FLOOR, "commits/s"), (FLOOR2, "cycles/s")):
        rates = [m.ops_per_second for m in history.floors(workload.name)]
        if rates:
            said.append(
                f"{workload.title}: {len(rates)} measurements, {min(rates):,.0f}-{max(rates):,.0f} {unit}"
            )
    return "; ".join(said)


def _floor_row(title: str, commits: int, measured: list[Figures], floor: float) -> list[str]:
    rates = [m.ops_per_second for m in measured]
    ratio = mean(rates) / floor if floor else 0.0
    return [
        title,
        str(commits),
        f"{mean(rates):,.0f}",
        f"{ratio:.2f}",
        f"{ratio * commits:.2f}",
        "",
        *_costs([_mean_figures(measured)]),
    ]


def _path_row(path: PathResult) -> list[str]:
    two = path.ratio_two_commit
    return [
        path.path.title,
        str(path.path.commits),
        f"{path.figures.ops_per_second:,.0f}",
        f"{path.ratio:.2f}",
        f"{path.ratio_per_commit:.2f}",
        f"{two:.2f}" if two is not None else "",
        *_costs([path.figures]),
    ]


def _costs(measured: list[Figures]) -> list[str]:
    f = measured[0]
    return [
        _number(f.p50_ms, 2),
        _number(f.p99_ms, 2),
        _number(f.wal_bytes_per_op, 0),
        _number(f.wal_fpi_per_op, 2),
        _number(f.cpu_ms_per_op, 3),
        _number(f.runs_hot_share * 100, 1) if f.runs_hot_share is not None else "",
    ]


def _mean_figures(measured: list[Figures]) -> Figures:
    def avg(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return mean(present) if present else None

    return Figures(
        measured[0].workload,
        sum(m.ops for m in measured),
        mean(m.ops_per_second for m in measured),
        avg([m.p50_ms for m in measured]),
        avg([m.p99_ms for m in measured]),
        avg([m.wal_bytes_per_op for m in measured]),
        avg([m.wal_fpi_per_op for m in measured]),
        avg([m.wal_records_per_op for m in measured]),
        avg([m.cpu_ms_per_op for m in measured]),
        avg([m.server_cpu_ms_per_op for m in measured]),
        avg([m.client_cpu_ms_per_op for m in measured]),
    )


def scaling_rows(result: BenchResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows: per hot path, CPU ms/op and p50 ms at each history size, and growth."""
    sizes = [f"{h.history:,}" if h.history is not None else "in place" for h in result.histories]
    header = [
        "hot path",
        *(f"CPU ms/op @ {s}" for s in sizes),
        "CPU x",
        *(f"p50 ms @ {s}" for s in sizes),
        "p50 x",
    ]
    found = []
    for line in result.scaling():
        found.append(
            [
                line["title"],
                *(_number(v, 3) for v in line["cpu_ms_per_op"]),
                _number(line["cpu_growth"], 2),
                *(_number(v, 2) for v in line["p50_ms"]),
                _number(line["p50_growth"], 2),
            ]
        )
    return header, found


def _number(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _heading(history: HistoryResult) -> str:
    sizes = ", ".join(f"{table} {count:,}" for table, count in history.rows.items() if count)
    return f"{history.label} ({sizes or 'empty tables'}): {history.seconds:.0f} s"


def write_tables(result: BenchResult, console: Console) -> None:
    facts = result.server
    console.print(
        escape(f"settings: {', '.join(f'{k}={v}' for k, v in facts.settings.items())}"), soft_wrap=True
    )
    for history in result.histories:
        table = Table(title=escape(_heading(history)), title_justify="left", box=box.SIMPLE_HEAD)
        for column in COLUMNS:
            left = column == "workload"
            table.add_column(column, justify="left" if left else "right", no_wrap=left)
        for row in rows(history):
            table.add_row(*(escape(cell) for cell in row))
        console.print(table)
        console.print(escape(floor_note(history)), soft_wrap=True)
    header, lines = scaling_rows(result)
    if lines:
        table = Table(
            title="per operation, from the smallest history to the largest",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for column in header:
            left = column == "hot path"
            table.add_column(column, justify="left" if left else "right", no_wrap=left)
        for line in lines:
            table.add_row(*(escape(cell) for cell in line))
        console.print(table)


def markdown(result: BenchResult) -> str:
    parts = []
    for history in result.histories:
        parts.append(f"### {_heading(history)}\n")
        parts.append(_markdown_table(list(COLUMNS), rows(history)))
        parts.append(floor_note(history) + "\n")
    header, lines = scaling_rows(result)
    if lines:
        parts.append("### per operation, from the smallest history to the largest\n")
        parts.append(_markdown_table(header, lines))
    facts = result.server
    parts.append(
        "settings: "
        + ", ".join(f"`{k}={v}`" for k, v in facts.settings.items())
        + f"; CPU: {facts.cpu_source}\n"
    )
    return "\n".join(parts)


def _markdown_table(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |" for line in lines]
    return "\n".join(out) + "\n"
