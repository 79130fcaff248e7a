"""`agentddl trace` output: a table of statements (rich text) or one JSON document, then
the findings through the shared live-findings reporters (checks/report.py).

JSON keys (stable): tool, server_version, statements[{file, line, sql, in_transaction,
locks[{relation, mode, blocks}], waited_for[{relation, mode}], rewritten, emptied, scanned,
written{relation: rows updated or deleted}, duration_ms, strongest_lock, lock_held_ms,
lock_timeout_ms, statement_timeout_ms, blocked_ms (with --load), error (when it failed),
left_invalid (the invalid indexes a failed CONCURRENTLY left)}], load{before_qps,
during_qps, after_qps, queries, connections, errors} (with --load), findings, summary.
"""

from __future__ import annotations

from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.pg.lockmodes import STRENGTH
from agentddl.checks.report import Format, RuleInfo, render_findings
from agentddl.checks.trace.judge import RULES
from agentddl.checks.trace.types import StatementTrace, TraceResult


def render(result: TraceResult, fmt: Format, out: TextIO) -> None:
    if fmt == "text":
        _text(result, out)
    extra: dict[str, Any] | None = None
    if fmt == "json":
        with_load = result.throughput is not None
        extra = {
            "server_version": result.server_version,
            "statements": [s.as_json(with_load) for s in result.statements],
        }
        if result.throughput is not None:
            extra["load"] = result.throughput.as_json()
    rules = [RuleInfo(r.code, r.name, r.severity, r.summary) for r in RULES]
    render_findings(result.findings, fmt, out, tool="trace", rules=rules, extra=extra)


def _text(result: TraceResult, out: TextIO) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True, width=120)
    with_load = result.throughput is not None
    table = Table(title=f"trace on PostgreSQL {result.server_version}", show_lines=False)
    for column in (
        "statement",
        "locks held",
        "rewritten / scanned",
        "ms",
        "held ms",
        *(["blocked ms"] if with_load else []),
    ):
        table.add_column(column, overflow="fold")
    for trace in result.statements:
        table.add_row(*_row(trace, with_load, result.existing))
    console.print(table)
    if result.throughput is not None:
        t = result.throughput
        console.print(
            f"workload ({t.connections} connections, {t.queries} queries, {t.errors} errors): "
            f"{t.before:.0f} q/s before, {t.during:.0f} during, {t.after:.0f} after"
        )


def _row(trace: StatementTrace, with_load: bool, existing: set[str]) -> list[str]:
    changed = (
        [f"rewrite {r}" for r in trace.rewritten]
        + [f"emptied {r}" for r in trace.emptied]
        + [f"scan {r}" for r in trace.scanned]
        + [f"write {n} rows {r}" for r, n in sorted(trace.written.items()) if r in existing]
        + [f"left invalid {r}" for r in trace.left_invalid]
    )
    row = [
        _statement_cell(trace),
        _locks_cell(trace, existing),
        escape("\n".join(changed)),
        f"{trace.duration_ms:.1f}",
        f"{trace.lock_held_ms:.1f}",
    ]
    if with_load:
        row.append(f"{trace.blocked_ms or 0.0:.1f}")
    return row


def _statement_cell(trace: StatementTrace) -> str:
    """file:line, the statement's first line (cut at 60 characters), its error."""
    first_line = trace.sql.splitlines()[0] if trace.sql else ""
    sql = first_line if len(first_line) <= 60 else first_line[:57] + "..."
    where = f"{trace.file.rsplit('/', 1)[-1]}:{trace.line}"
    cell = f"{escape(where)}\n{escape(sql)}"
    if trace.error:
        cell += f"\n[red]error {escape(trace.error)}[/red]"
    return cell


def _locks_cell(trace: StatementTrace, existing: set[str]) -> str:
    """Locks on existing relations, one a line; those on relations the migration created
    hurt nobody: counted, not listed (JSON has them all); then the locks it waited for."""
    shown = [k for k in trace.locks if k.relation in existing]
    lines = [f"{_short(k.mode)} {escape(k.relation)}" for k in shown]
    if len(shown) < len(trace.locks):
        lines.append(f"(+{len(trace.locks) - len(shown)} on relations created here)")
    waited = [f"{_short(k.mode)} {escape(k.relation)}" for k in trace.waited_for]
    lines += [f"[red]waited {lock}[/red]" for lock in waited]
    return "\n".join(lines)


def _short(mode: str) -> str:
    """A table lock mode without pg_locks' "Lock" suffix (ShareLock: Share)."""
    return mode.removesuffix("Lock") if mode in STRENGTH else mode
