"""`agentddl trace` as a `core.report.Report`: the statement table (rich text, Markdown)
before the findings, and the statements as JSON details.

JSON keys (stable): tool, server_version, statements[{file, line, sql, in_transaction,
locks[{relation, mode, blocks}], waited_for[{relation, mode}], rewritten, emptied, scanned,
written{relation: rows updated or deleted}, duration_ms, strongest_lock, lock_held_ms,
lock_timeout_ms, statement_timeout_ms, blocked_ms (with --load), error (when it failed),
left_invalid (the invalid indexes a failed CONCURRENTLY left)}], load{before_qps,
during_qps, after_qps, queries, connections, errors} (with --load), findings, summary.
"""

from __future__ import annotations

import functools
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agentddl.checks.core.report import Report
from agentddl.checks.pg.lockmodes import LockMode
from agentddl.checks.trace.result import TraceResult
from agentddl.checks.trace.rules import all_rules
from agentddl.checks.trace.types import StatementTrace


def build_report(result: TraceResult) -> Report:
    """Findings, trace's rules, the statements (JSON details; a table in text and
    Markdown): the Report every reporter renders."""
    return Report(
        tool="trace",
        findings=result.findings,
        rules=all_rules(),
        details=details(result),
        sources={path: text for path, text in result.sources.items() if _cited(result, path)},
        text_body=functools.partial(_text, result),
        markdown_body=functools.partial(_markdown, result),
    )


def details(result: TraceResult) -> dict[str, Any]:
    """server_version, statements, and load (with --load): JSON's own keys."""
    with_load = result.throughput is not None
    data: dict[str, Any] = {
        "server_version": result.server_version,
        "statements": [s.as_json(with_load) for s in result.statements],
    }
    if result.throughput is not None:
        data["load"] = result.throughput.as_json()
    return data


def _cited(result: TraceResult, path: str) -> bool:
    return any(f.file == path for f in result.findings)


def _columns(with_load: bool) -> list[str]:
    return ["statement", "locks held", "rewritten / scanned", "ms", "held ms"] + (
        ["blocked ms"] if with_load else []
    )


def _text(result: TraceResult, console: Console) -> None:
    with_load = result.throughput is not None
    table = Table(title=f"trace on PostgreSQL {result.server_version}", show_lines=False)
    for column in _columns(with_load):
        table.add_column(column, overflow="fold")
    for trace in result.statements:
        table.add_row(*_row(trace, with_load, result.existing))
    console.print(table)
    if result.throughput is not None:
        console.print(escape(_workload_line(result)))


def _markdown(result: TraceResult) -> str:
    """The statement table in Markdown (cells as plain text: rich markup removed)."""
    with_load = result.throughput is not None
    columns = _columns(with_load)
    lines = [
        f"Trace on PostgreSQL {result.server_version}:",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for trace in result.statements:
        cells = _row(trace, with_load, result.existing, markup=False)
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    if result.throughput is not None:
        lines += ["", _workload_line(result)]
    return "\n".join(lines) + "\n"


def _workload_line(result: TraceResult) -> str:
    t = result.throughput
    assert t is not None
    return (
        f"workload ({t.connections} connections, {t.queries} queries, {t.errors} errors): "
        f"{t.before:.0f} q/s before, {t.during:.0f} during, {t.after:.0f} after"
    )


def _row(trace: StatementTrace, with_load: bool, existing: set[str], markup: bool = True) -> list[str]:
    changed = (
        [f"rewrite {r}" for r in trace.rewritten]
        + [f"emptied {r}" for r in trace.emptied]
        + [f"scan {r}" for r in trace.scanned]
        + [f"write {n} rows {r}" for r, n in sorted(trace.written.items()) if r in existing]
        + [f"left invalid {r}" for r in trace.left_invalid]
    )
    text = escape if markup else str
    row = [
        _statement_cell(trace, markup),
        _locks_cell(trace, existing, markup),
        text("\n".join(changed)),
        f"{trace.duration_ms:.1f}",
        f"{trace.lock_held_ms:.1f}",
    ]
    if with_load:
        row.append(f"{trace.blocked_ms or 0.0:.1f}")
    return row


def _statement_cell(trace: StatementTrace, markup: bool) -> str:
    """file:line, the statement's first line (cut at 60 characters), its error."""
    first_line = trace.sql.splitlines()[0] if trace.sql else ""
    sql = first_line if len(first_line) <= 60 else first_line[:57] + "..."
    where = f"{trace.file.rsplit('/', 1)[-1]}:{trace.line}"
    if not markup:
        return f"{where}\n{sql}" + (f"\nerror {trace.error}" if trace.error else "")
    cell = f"{escape(where)}\n{escape(sql)}"
    if trace.error:
        cell += f"\n[red]error {escape(trace.error)}[/red]"
    return cell


def _locks_cell(trace: StatementTrace, existing: set[str], markup: bool) -> str:
    """Locks on existing relations, one a line; those on relations the migration created
    hurt nobody: counted, not listed (JSON has them all); then the locks it waited for."""
    text = escape if markup else str
    shown = [k for k in trace.locks if k.relation in existing]
    lines = [f"{_short(k.mode)} {text(k.relation)}" for k in shown]
    if len(shown) < len(trace.locks):
        lines.append(f"(+{len(trace.locks) - len(shown)} on relations created here)")
    for k in trace.waited_for:
        waited = f"waited {_short(k.mode)} {text(k.relation)}"
        lines.append(f"[red]{waited}[/red]" if markup else waited)
    return "\n".join(lines)


def _short(mode: str) -> str:
    """A table lock mode without pg_locks' "Lock" suffix (ShareLock: Share)."""
    return mode.removesuffix("Lock") if LockMode.from_pg_locks(mode) is not None else mode


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a bare `|` would end the cell, a newline the row."""
    return text.replace("|", "\\|").replace("\n", "<br>")
