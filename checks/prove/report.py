"""A prove result as a `core.report.Report` (`build_report`): the facts of the run, one
finding per broken scenario, and prove's own tables (every scenario with its verdict and
counts, then the totals) for text and markdown. Every format comes from `core.report.render`.

JSON: {"tool": "prove", <the run's facts>, "run": {...}, "scenarios": [{"name",
"strategy", "held", <counts>, "violations", "seconds"[, "minutes": the soak's rows]}],
"totals": {duplicate_effects, lost_runs, stuck_runs, stale_writes_accepted, lost_outbox,
duplicate_deliveries, runs_completed, seconds}, "findings": [...], "summary": {...}}.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report
from agentddl.checks.prove.result import ProveResult, ScenarioResult
from agentddl.checks.prove.rules import all_rules, finding_of
from agentddl.checks.prove.soak_report import markdown_soak, write_soak

HIDDEN = {"errors", "worker_failures"}  # shown only when not zero


def build_report(result: ProveResult) -> Report:
    facts = result.run_facts()
    return Report(
        tool="prove",
        findings=findings(result),
        rules=all_rules(),
        about=facts,
        details=result.to_json(),
        text_body=lambda console: write_table(result, console),
        markdown_body=lambda: markdown_table(result),
        summary=summary(result),
        failed=not result.held,
    )


def findings(result: ProveResult) -> list[Finding]:
    """One error finding per broken scenario, of the rule of its guarantee."""
    return [found for s in result.scenarios if (found := finding_of(s)) is not None]


def summary(result: ProveResult) -> str:
    total = len(result.scenarios)
    held = total - len(result.broken)
    if result.held:
        return f"prove: every scenario held ({held}/{total})."
    return f"prove: {len(result.broken)} scenarios BROKEN ({held}/{total}): {', '.join(result.broken)}."


def write_table(result: ProveResult, console: Console) -> None:
    """Every scenario with its verdict and counts, then the totals."""
    table = Table(show_lines=False)
    for column in ("strategy", "scenario", "verdict", "counts", "s"):
        table.add_column(column, overflow="fold")
    for scenario in result.scenarios:
        verdict = "[green]held[/green]" if scenario.held else "[bold red]BROKEN[/bold red]"
        table.add_row(
            scenario.strategy, scenario.name, verdict, escape(_counts(scenario)), f"{scenario.seconds:.1f}"
        )
    console.print(table)
    console.print(escape(_totals(result)), soft_wrap=True)
    for soak in (s for s in result.scenarios if s.series):  # --soak: its minutes
        write_soak(soak, console)


def markdown_table(result: ProveResult) -> str:
    rows = ["| strategy | scenario | verdict | counts | s |", "|---|---|---|---|---|"]
    for s in result.scenarios:
        verdict = "held" if s.held else "**BROKEN**"
        rows.append(f"| {s.strategy} | {s.name} | {verdict} | {_counts(s)} | {s.seconds:.1f} |")
    soaks = "".join("\n" + markdown_soak(s) for s in result.scenarios if s.series)
    return "\n".join(rows) + "\n\n" + _totals(result).replace("\n", "  \n") + "\n" + soaks


def _counts(scenario: ScenarioResult) -> str:
    return " ".join(f"{k}={v}" for k, v in scenario.counts.items() if k not in HIDDEN or v)


def _totals(result: ProveResult) -> str:
    totals = result.totals()
    words = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in totals.items() if k != "seconds")
    return f"totals: {words}\n{totals['seconds']} s, {result.run_facts()['runs_per_second']} runs/s"
