"""The diff as a Report: a table of steps (text), the PLAN.md section (markdown), every
step's facts (json). Refused changes fail the command (exit 1) with their plan."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.core.report import Report
from agentddl.checks.diff.live import LIVE
from agentddl.checks.diff.locks import declared_mode, parsed_mode
from agentddl.checks.diff.result import DiffResult
from agentddl.checks.diff.rules import all_rules
from agentddl.generator.render.plan.changes import changes_section


def build_report(result: DiffResult) -> Report:
    """The diff as every reporter reads it: its steps (JSON details, a table in text),
    the refusals as findings, the plan section in Markdown."""
    delta = result.delta
    rows = step_rows(result)
    refused = len(delta.refusals)
    summary = (
        f"diff: {refused} change(s) cannot be made online (plan above)"
        if refused
        else "diff: no step: the schema already matches"
        if not delta.steps
        else f"diff: {len(delta.steps)} online step(s), "
        f"{sum(1 for r in rows if r['blocks_writes'])} taking a write-blocking lock (catalog only, "
        "under a short lock_timeout)"
    )
    return Report(
        tool="diff",
        findings=list(result.findings),
        rules=all_rules(),
        about={"from": result.old, "to": result.new},
        details={
            "changes": list(delta.changes),
            "notes": list(delta.notes),
            "steps": rows,
            "refused": [r.as_dict() for r in delta.refusals],
        },
        text_body=lambda console: _text(result, rows, console),
        markdown_body=lambda: changes_section(delta, f"From {result.old} to {result.new}:"),
        summary=summary,
        failed=bool(refused),
    )


def step_rows(result: DiffResult) -> list[dict[str, Any]]:
    """Each step as JSON: the generator's facts plus what the lock blocks."""
    rows = []
    for number, step in enumerate(result.delta.steps, start=1):
        mode = declared_mode(step)
        parsed = parsed_mode(step, result.profile.engine.version)
        rows.append(
            {
                "number": number,
                **step.as_dict(),
                "blocks_writes": bool(mode and mode.blocks_writes()),
                "blocks_reads": bool(mode and mode.blocks_reads()),
                "lock_parsed": str(parsed) if parsed else None,
            }
        )
    return rows


_SHORT = {"catalog": "instant", "scan": "grows with the table", "build": "grows with the table"}


def _text(result: DiffResult, rows: list[dict[str, object]], console: Console) -> None:
    delta = result.delta
    for change in delta.changes:
        console.print(f"  {escape(change)}")
    if rows:
        table = Table(show_lines=False, pad_edge=False, box=None)
        for column in ("#", "phase", "step", "lock", "blocks", "reads", "duration"):
            table.add_column(column, overflow="fold")
        for row in rows:
            blocks = "writes+reads" if row["blocks_reads"] else "writes" if row["blocks_writes"] else "-"
            table.add_row(
                str(row["number"]),
                str(row["phase"]) + (" (2nd revision)" if row["handover"] == "contract" else ""),
                escape(str(row["summary"])),
                str(row["lock"] or "-"),
                blocks,
                "scans" if row["scans"] else "-",
                _SHORT[str(row["work"])],
            )
        console.print(table)
    elif not delta.refusals:
        console.print(
            "no schema change" + ("" if delta.changes == LIVE else ": only queries.sql and PLAN.md differ")
        )
    for note in delta.notes:
        console.print(f"note: {escape(note)}")
    for refusal in delta.refusals:
        console.print(f"[bold red]refused[/] {escape(refusal.change)}: {escape(refusal.reason)}")
        for number, line in enumerate(refusal.plan, start=1):
            console.print(f"  {number}. {escape(line)}")
