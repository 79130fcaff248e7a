"""The soak's rows for people: a table of the minutes (runs/s, latency, the live table),
a table of every hot table's and index's size and dead tuples minute by minute, and the
ratios the soak is judged on. Text (rich) and markdown from the same cells.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.table import Table

from agentddl.checks.prove.result import ScenarioResult
from agentddl.checks.prove.soak_stats import GROWTH, LIVE_TABLE, WORSE

MINUTE_COLUMNS = (
    "minute",
    "s",
    "runs",
    "runs/s",
    "p50 ms",
    "p99 ms",
    f"{LIVE_TABLE} dead",
    "autovacuums",
    "load",
)


def write_soak(scenario: ScenarioResult, console: Console) -> None:
    """The soak's two tables and its ratios, after prove's own table."""
    for title, header, body in _tables(scenario):
        table = Table(title=f"{scenario.strategy} soak: {title}", show_lines=False)
        for column in header:  # names fold rather than lose their ends
            left = column in ("relation", "what")
            table.add_column(column, justify="left" if left else "right", overflow="fold", no_wrap=not left)
        for row in body:
            table.add_row(*row)
        console.print(table)
    console.print(ratios(scenario), soft_wrap=True)


def markdown_soak(scenario: ScenarioResult) -> str:
    parts = []
    for title, header, body in _tables(scenario):
        lines = [
            f"**{scenario.strategy} soak: {title}**",
            "",
            _md_row(header),
            _md_row(["---"] * len(header)),
        ]
        parts.append("\n".join([*lines, *(_md_row(row) for row in body)]))
    return "\n\n".join([*parts, ratios(scenario)]) + "\n"


def ratios(scenario: ScenarioResult) -> str:
    """The judged ratios, with their bars."""
    counts = scenario.counts
    if "throughput_last_to_second" not in counts:
        return "soak: too few minutes to judge"
    return (
        f"last minute / second: throughput {counts['throughput_last_to_second']}x (bar >= {1 / WORSE:.3g}x), "
        f"p99 {counts['p99_last_to_second']}x (bar <= {WORSE}x); {LIVE_TABLE} after the soak: "
        f"table {counts['live_table_growth']}x its size after minute 1, indexes "
        f"{counts['live_index_growth_from_second']}x theirs after minute 2 (bar <= {GROWTH:g}x)"
    )


def _tables(scenario: ScenarioResult) -> Iterator[tuple[str, list[str], list[list[str]]]]:
    rows = scenario.series
    yield "per minute", list(MINUTE_COLUMNS), [_minute(row) for row in rows]
    header = ["relation", "what", *(f"m{row['minute']}" for row in rows)]
    yield "sizes (kB) and dead tuples at the end of each minute", header, list(_relations(rows))


def _minute(row: dict[str, Any]) -> list[str]:
    live = row["tables"].get(LIVE_TABLE, {})
    cells = (row["minute"], row["seconds"], row["runs_completed"], row["runs_per_second"], row["p50_ms"])
    found = (row["p99_ms"], live.get("dead_tuples", ""), live.get("autovacuums", ""), row.get("load", ""))
    return [str(c) for c in (*cells, *found)]


def _relations(rows: list[dict[str, Any]]) -> Iterator[list[str]]:
    """Per hot table its size, its indexes' size and its dead tuples; then each index's size."""
    tables = sorted(rows[0]["tables"]) if rows else []
    for name in tables:
        yield [name, "table kB", *(_kb(r["tables"][name]["bytes"]) for r in rows)]
        yield [name, "indexes kB", *(_kb(r["tables"][name]["index_bytes"]) for r in rows)]
        yield [name, "dead tuples", *(str(r["tables"][name]["dead_tuples"]) for r in rows)]
    for index in sorted(rows[0]["indexes"]) if rows else []:
        yield [index, "index kB", *(_kb(r["indexes"].get(index, 0)) for r in rows)]


def _kb(size: int) -> str:
    return f"{size / 1024:,.0f}"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
