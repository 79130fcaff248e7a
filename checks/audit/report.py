"""Audit reports: text (rich), json, sarif (the shared live-findings reporters for the
findings part) and markdown (a pull-request comment).

JSON keys (stable): the shared reporter's {"tool": "audit", "findings", "summary"} plus
    "server_version", "passed", "seconds", "seed" (rows per table, rows_per_second,
    seconds; absent with no seeding), "paths": [{"name", "origin", "kind", "table",
    "declared", "passed", "node", "cost", "rows", "indexes", "actual_ms", "buffers",
    "findings"}],
    "suggestions": [{"path", "table", "ddl", "reason", "verified", "cost_before",
    "cost_after", "node_after", "remaining"}] (verified: the planner uses the hypothetical
    index and the plan then passes; remaining: the plan error left when it is used)
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Literal, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.run import AuditResult
from agentddl.checks.report import RuleInfo, json_document, render_text, sarif_log, sorted_findings

Format = Literal["text", "json", "sarif", "markdown"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif", "markdown")

RULES = (
    RuleInfo(
        "ADA101",
        "seq-scan-on-large-table",
        "error",
        "An access path reads a large table by a sequential scan.",
    ),
    RuleInfo(
        "ADA102",
        "sort-not-served-by-index",
        "error",
        "An access path sorts many rows an index could deliver in order.",
    ),
    RuleInfo(
        "ADA103",
        "no-partition-pruning",
        "error",
        "A path that filters by the partition key reads every partition.",
    ),
    RuleInfo(
        "ADA104",
        "declared-index-not-used",
        "info",
        "The plan serves the path with another index than the declared one.",
    ),
    RuleInfo(
        "ADA105",
        "declared-index-missing",
        "error",
        "The index the model declares for a path is not in the database.",
    ),
    RuleInfo(
        "ADA106",
        "skip-scan",
        "warning",
        "PostgreSQL 18 plans a skip scan: the leading index column is not constrained.",
    ),
    RuleInfo(
        "ADA107", "path-not-plannable", "error", "The path could not be planned with its example values."
    ),
    RuleInfo(
        "ADA108", "unselective-index-scan", "error", "An index hands over far more rows than the path keeps."
    ),
    RuleInfo(
        "ADA109",
        "full-index-scan",
        "error",
        "Before PostgreSQL 18: a B-tree read whole (leading column free).",
    ),
    RuleInfo(
        "ADA114", "generic-plan-not-served", "warning", "16+: the generic plan reads a large table unindexed."
    ),
    RuleInfo(
        "ADA110", "redundant-for-workload", "warning", "Dropping the index leaves every path's plan as good."
    ),
    RuleInfo("ADA111", "unused-index", "warning", "No path's plan and no constraint uses the index."),
    RuleInfo(
        "ADA112",
        "low-cardinality-index",
        "warning",
        "A full single-column index on a column with few distinct values.",
    ),
    RuleInfo("ADA113", "index-on-json-blob", "warning", "An index keyed on a whole JSON document."),
    RuleInfo(
        "ADA120", "lost-index", "error", "Against the baseline, the path no longer uses an index it used."
    ),
    RuleInfo(
        "ADA121",
        "cost-regression",
        "error",
        "Against the baseline, the path's estimated cost grew beyond the threshold.",
    ),
)


def render(result: AuditResult, fmt: Format, out: TextIO) -> None:
    if fmt == "text":
        _text(result, out)
    elif fmt == "json":
        json.dump(json_report(result), out, indent=2, ensure_ascii=False, default=str)
        out.write("\n")
    elif fmt == "sarif":
        json.dump(sarif_log(sorted_findings(result.findings), tool="audit", rules=RULES), out, indent=2)
        out.write("\n")
    else:
        out.write(markdown(result))


def json_report(result: AuditResult) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "server_version": result.server_version,
        "passed": result.passed,
        "seconds": round(result.seconds, 3),
        **result.extra,
        "paths": [_path_dict(r) for r in result.paths],
        "suggestions": [asdict(s) for s in result.suggestions],
    }
    return json_document(sorted_findings(result.findings), tool="audit", extra=extra)


def _path_dict(r: PathResult) -> dict[str, Any]:
    plan = r.plan
    return {
        "name": r.path.name,
        "origin": r.path.origin,
        "kind": r.path.kind,
        "table": r.path.table,
        "declared": r.path.declared,
        "passed": r.passed,
        "node": plan.main_node(r.path.table) if plan else None,
        "cost": round(plan.cost, 2) if plan else None,
        "rows": plan.rows if plan else None,
        "indexes": sorted(plan.indexes) if plan else [],
        "actual_ms": plan.actual_ms if plan else None,
        "buffers": plan.buffers if plan else None,
        "findings": [f.code for f in r.findings],
    }


def _text(result: AuditResult, out: TextIO) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True, width=160)
    table = Table(title=f"access paths on PostgreSQL {result.server_version}")
    for column in ("path", "result", "plan node", "est. cost", "ms"):
        table.add_column(column, justify="right" if column in ("est. cost", "ms") else "left")
    for r in result.paths:
        state = "[green]pass[/]" if r.passed else "[red]FAIL[/]"
        if r.plan is None and r.passed:
            state = "[dim]not planned[/]"
        node = escape(r.plan.main_node(r.path.table)) if r.plan else "-"
        cost = f"{r.plan.cost:,.1f}" if r.plan else "-"
        ms = f"{r.plan.actual_ms:.2f}" if r.plan and r.plan.actual_ms is not None else "-"
        table.add_row(escape(r.path.name), state, node, cost, ms)
    console.print(table)
    for s in result.suggestions:
        console.print(
            f"[bold]suggestion[/] for {escape(s.path)}: {escape(s.ddl)}\n  {escape(s.reason)}"
            f"\n  {escape(_verdict(s))}"
        )
    render_text(sorted_findings(result.findings), out, tool="audit")


def _verdict(s: Any) -> str:
    if s.verified is None:
        return "not verified (no hypopg on this server): reasoned from the predicate and order columns"
    if s.remaining:
        return (
            f"hypopg: the planner uses it ({s.node_after}), but the plan still fails: {s.remaining} "
            f"(cost {s.cost_before:,.1f} -> {s.cost_after:,.1f})"
        )
    if s.verified:
        return (
            f"hypopg: the planner uses it ({s.node_after}); estimated cost "
            f"{s.cost_before:,.1f} -> {s.cost_after:,.1f}"
        )
    return f"hypopg: the planner would not use it (cost {s.cost_before:,.1f} -> {s.cost_after:,.1f})"


def markdown(result: AuditResult) -> str:
    """A pull-request comment: verdict, failing paths, findings, suggestions; the passing
    paths folded away in a <details> block."""
    lines = [f"### agentddl audit — PostgreSQL {result.server_version}", "", _headline(result), ""]
    if "seed" in result.extra:
        seed = result.extra["seed"]
        lines += [
            f"Seeded {sum(seed['rows'].values()):,} rows ({seed['rows'].get('events', 0):,} events) "
            f"at {seed['rows_per_second']:,.0f} rows/s; audit {result.seconds:.1f} s.",
            "",
        ]
    planned = [r for r in result.paths if r.plan is not None or not r.passed]
    failing = [r for r in planned if not r.passed]
    if failing:
        lines += [*_path_table(failing), ""]
    findings = [f for f in sorted_findings(result.findings) if f.severity != "info"]
    if findings:
        lines += ["#### Findings", ""]
        lines += [
            f"- **{f.severity}** {f.code} `{f.name}` `{f.object}`: {f.message} _Fix:_ {f.fix}"
            for f in findings
        ]
        lines.append("")
    if result.suggestions:
        lines += ["#### Suggested indexes", ""]
        lines += [f"- `{s.path}`: `{s.ddl}` — {s.reason}. {_verdict(s)}" for s in result.suggestions]
        lines.append("")
    passing = [r for r in planned if r.passed]
    lines += [
        f"<details><summary>{len(passing)} passing paths</summary>",
        "",
        *_path_table(passing),
        "",
        "</details>",
    ]
    return "\n".join(lines) + "\n"


def _headline(result: AuditResult) -> str:
    failed = result.failed_paths
    if result.passed:
        return "✅ every access path is served by an index"
    if failed:
        return f"❌ {len(failed)} access path(s) not served: " + ", ".join(f"`{n}`" for n in failed)
    if regressed := result.regressed_paths:
        return f"❌ {len(regressed)} access path(s) regressed against the baseline: " + ", ".join(
            f"`{n}`" for n in regressed
        )
    return "❌ findings need attention"


def _path_table(results: list[PathResult]) -> list[str]:
    rows = ["| path | result | plan node | est. cost |", "|---|---|---|---:|"]
    for r in results:
        node = r.plan.main_node(r.path.table) if r.plan else "-"
        cost = f"{r.plan.cost:,.1f}" if r.plan else "-"
        rows.append(f"| `{r.path.name}` | {'pass' if r.passed else '**FAIL**'} | {node} | {cost} |")
    return rows
