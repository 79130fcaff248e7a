"""Reporters: text (rich, for people) and json (stable keys, for machines).

json: {"run": {...what was proven}, "scenarios": [{"name", "strategy", "held", <counts>,
"violations", "seconds"}], "totals": {duplicate_effects, lost_runs, stuck_runs,
stale_writes_accepted, lost_outbox, duplicate_deliveries, runs_completed, seconds}}.
"""

from __future__ import annotations

import json
from typing import TextIO

from rich.console import Console
from rich.table import Table

from agentddl.checks.prove.result import ProveReport, ScenarioResult

FORMATS = ("text", "json")
HIDDEN = {"errors", "worker_failures"}  # shown only when not zero


def write_json(report: ProveReport, out: TextIO) -> None:
    json.dump(report.to_json(), out, indent=2, default=str)
    out.write("\n")


def write_text(report: ProveReport, out: TextIO) -> None:
    console = Console(file=out, width=120, highlight=False, soft_wrap=False)
    run = report.run
    console.print(
        f"prove {run['profile']}: PostgreSQL {', '.join(map(str, run['postgres']))}, "
        f"{run['workers']} workers, {run['runs']} runs"
    )
    table = Table(show_lines=False)
    for column in ("strategy", "scenario", "verdict", "counts", "s"):
        table.add_column(column, overflow="fold")
    for scenario in report.scenarios:
        verdict = "[green]held[/green]" if scenario.held else "[bold red]BROKEN[/bold red]"
        table.add_row(scenario.strategy, scenario.name, verdict, _counts(scenario), f"{scenario.seconds:.1f}")
    console.print(table)
    for scenario in report.scenarios:
        for violation in scenario.violations:
            console.print(f"[red]{scenario.strategy} {scenario.name}: {violation}[/red]")
    console.print(_totals(report), soft_wrap=True)


def _counts(scenario: ScenarioResult) -> str:
    return " ".join(f"{k}={v}" for k, v in scenario.counts.items() if k not in HIDDEN or v)


def _totals(report: ProveReport) -> str:
    totals = report.to_json()["totals"]
    throughput = report.to_json()["run"]["runs_per_second"]
    words = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in totals.items() if k != "seconds")
    held = sum(1 for s in report.scenarios if s.held)
    verdict = "every scenario held" if report.held else f"{len(report.scenarios) - held} scenarios BROKEN"
    verdict += f" ({held}/{len(report.scenarios)})"
    return f"totals: {words}\n{totals['seconds']} s, {throughput} runs/s: {verdict}"


WRITERS = {"text": write_text, "json": write_json}
