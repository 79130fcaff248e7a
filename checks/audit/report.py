"""The audit as a `core.report.Report`: its findings and rules, its own data for JSON,
its path table for text and its pull-request comment for markdown. Every format
(text, json, sarif, github, markdown) is rendered by `agentddl.checks.core.report`.

JSON keys (stable): the shared {"tool": "audit", "findings", "summary"} plus
    "server_version", "passed", "seconds", "hypopg" (suggestions were verified with
    hypothetical indexes), "seed" (rows per table, rows_per_second, seconds; absent when
    the caller seeded the database), "in_place" (audit --dsn: {"target", "schema",
    "redundancy", "suggestions", "note"}: what judged the what-if questions; absent on a
    scratch database), "paths": [{"name", "origin", "kind", "table", "declared",
    "passed", "node", "cost", "rows", "indexes", "actual_ms", "buffers", "findings",
    "method" (how it was planned), "written" (in place: the write whose read part was
    planned, else null), "calls", "total_ms", "mean_ms" (pg_stat_statements, else null)}],
    "suggestions": [{"path", "table", "ddl", "reason", "verified", "cost_before",
    "cost_after", "node_after", "remaining", "method", "ms_before", "ms_after"}]
    (verified: the planner uses the index and the plan then passes, and where it was
    built in a clone the query ran faster; remaining: the plan error left when it is used;
    method: hypopg, clone or both; ms_*: the clone's timings)
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.audit.candidate import Suggestion
from agentddl.checks.audit.planning import PathResult
from agentddl.checks.audit.result import AuditResult
from agentddl.checks.audit.rules import all_rules
from agentddl.checks.core.report import Report


def build_report(result: AuditResult) -> Report:
    """The audit as every reporter reads it (agentddl.checks.core.report.render); its rules
    are every rule that could report here: the audit's and the catalog checks'."""
    return Report(
        tool="audit",
        findings=result.findings,
        rules=(*all_rules(), *result.catalog_rules),
        details=details(result),
        text_body=lambda console: text_body(result, console),
        markdown_body=lambda: markdown_body(result),
        failed=not result.passed,
    )


def details(result: AuditResult) -> dict[str, Any]:
    """The audit's own JSON keys (see the module docstring)."""
    found: dict[str, Any] = {
        "server_version": result.server_version,
        "passed": result.passed,
        "seconds": round(result.seconds, 3),
        "hypopg": result.hypopg,
    }
    if result.in_place is not None:
        found["in_place"] = asdict(result.in_place)
    if result.seed is not None:
        found["seed"] = {
            "rows": result.seed.rows,
            "rows_per_second": round(result.seed.rows_per_second),
            "seconds": round(result.seed.seconds, 2),
        }
    found["paths"] = [_path_dict(r) for r in result.paths]
    found["suggestions"] = [asdict(s) for s in result.suggestions]
    return found


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
        "method": r.method or None,
        "written": r.path.written,
        "calls": r.path.stats.calls if r.path.stats else None,
        "total_ms": round(r.path.stats.total_ms, 3) if r.path.stats else None,
        "mean_ms": round(r.path.stats.mean_ms, 3) if r.path.stats else None,
    }


def text_body(result: AuditResult, console: Console) -> None:
    """Every path's verdict, plan node and cost, then the suggested indexes."""
    table = Table(title=_title(result))
    stats = any(r.path.stats for r in result.paths)
    columns = ("path", "result", "plan node", "est. cost", "ms") + (("calls", "mean ms") if stats else ())
    for column in columns:
        table.add_column(column, justify="left" if column in ("path", "result", "plan node") else "right")
    for r in result.paths:
        state = "[green]pass[/]" if r.passed else "[red]FAIL[/]"
        if r.plan is None and r.passed:
            state = "[dim]not planned[/]"
        node = escape(r.plan.main_node(r.path.table)) if r.plan else "-"
        cost = f"{r.plan.cost:,.1f}" if r.plan else "-"
        ms = f"{r.plan.actual_ms:.2f}" if r.plan and r.plan.actual_ms is not None else "-"
        row = [escape(r.path.name), state, node, cost, ms]
        if stats:
            row += [f"{r.path.stats.calls:,}", f"{r.path.stats.mean_ms:,.2f}"] if r.path.stats else ["-", "-"]
        table.add_row(*row)
    console.print(table)
    if result.in_place is not None:
        console.print(escape(_whatif_line(result)))
    for s in result.suggestions:
        console.print(
            f"[bold]suggestion[/] for {escape(s.path)}: {escape(s.ddl)}\n  {escape(s.reason)}"
            f"\n  {escape(verdict(s))}"
        )


def _title(result: AuditResult) -> str:
    where = result.in_place
    if where is None:
        return f"access paths on PostgreSQL {result.server_version}"
    return (
        f"access paths of {where.target} (schema {where.schema}), PostgreSQL {result.server_version}, "
        "in place (read-only)"
    )


def _whatif_line(result: AuditResult) -> str:
    where = result.in_place
    assert where is not None
    redundancy = f"judged in {where.redundancy}" if where.redundancy else "not judged"
    line = f"what-if: redundancy for the workload {redundancy}; suggestions verified by {where.suggestions}"
    return line + (f" ({where.note})" if where.note else "")


def verdict(s: Suggestion) -> str:
    """What judged a suggestion: hypopg, a build in a clone, both (or nothing)."""
    if s.method and "clone" in s.method:
        return _clone_verdict(s)
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


def _clone_verdict(s: Suggestion) -> str:
    timed = (
        f"{s.ms_before:,.2f} ms -> {s.ms_after:,.2f} ms"
        if s.ms_before is not None and s.ms_after is not None
        else ""
    )
    hypo = "hypopg: the planner uses it; " if s.method.startswith("hypopg") else ""
    if s.verified:
        return f"{hypo}built in the scratch clone: used, the query ran {timed}"
    if s.verified is None:
        return f"built in the scratch clone, not timed ({timed or 'the query could not run there'})"
    return f"built in the scratch clone: not used or not faster ({timed})"


def markdown_body(result: AuditResult) -> str:
    """The pull-request comment's own part: verdict, seeding, failing paths, suggestions;
    the passing paths folded away in a <details> block (the findings table follows)."""
    lines = [f"PostgreSQL {result.server_version}: {_headline(result)}", ""]
    if result.in_place is not None:
        lines += [f"{_title(result)}. {_whatif_line(result)}.", ""]
    if result.seed is not None:
        rows = result.seed.rows
        lines += [
            f"Seeded {sum(rows.values()):,} rows ({rows.get('events', 0):,} events) "
            f"at {result.seed.rows_per_second:,.0f} rows/s; audit {result.seconds:.1f} s.",
            "",
        ]
    planned = [r for r in result.paths if r.plan is not None or not r.passed]
    failing = [r for r in planned if not r.passed]
    if failing:
        lines += [*_path_table(failing), ""]
    if result.suggestions:
        lines += ["#### Suggested indexes", ""]
        lines += [f"- `{s.path}`: `{s.ddl}` — {s.reason}. {verdict(s)}" for s in result.suggestions]
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
    if result.passed:
        return "✅ every access path is served by an index"
    if failed := result.failed_paths:
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
