"""Findings from what was observed (ADT1xx). Every judgement reads the trace of a real
run on the server's version, never the SQL text: the same ALTER is a rewrite on one
version and not on another, and the trace says which one happened.

Only relations that existed before the migration count: locking or rewriting a table
the migration itself created hurts nobody.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentddl.checks.findings import Finding
from agentddl.checks.trace.locks import ROW_EXCLUSIVE, conflicts, strength
from agentddl.checks.trace.types import StatementTrace


@dataclass(frozen=True)
class Limits:
    max_lock_ms: float = 1000.0  # a write-blocking lock held longer than this is an error
    max_blocked_ms: float = 200.0  # with --load: a workload call blocked longer than this


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str


RULES = (
    Rule(
        "ADT101",
        "table-rewrite",
        "error",
        "The statement rewrote a table or index that existed before the migration (its relfilenode changed).",
    ),
    Rule(
        "ADT102",
        "scan-under-write-lock",
        "warning",
        "The statement read a whole existing table (validation) while holding a lock that blocks writes.",
    ),
    Rule(
        "ADT103",
        "long-write-lock",
        "error",
        "A lock that blocks writes on an existing table was held longer than --max-lock-ms.",
    ),
    Rule(
        "ADT104",
        "workload-blocked",
        "error",
        "With --load, a runtime query waited longer than --max-blocked-ms on this statement.",
    ),
    Rule(
        "ADT105",
        "no-lock-timeout",
        "warning",
        "The statement took a lock that blocks reads or writes of an existing table with lock_timeout off.",
    ),
    Rule(
        "ADT106",
        "statement-failed",
        "error",
        "The statement failed on the scratch database (e.g. lock_timeout fired); the migration stops there.",
    ),
)
_RULE = {r.name: r for r in RULES}


def judge(traces: list[StatementTrace], existing: set[str], limits: Limits) -> list[Finding]:
    """Every finding of every statement, in statement order."""
    return [f for trace in traces for f in _statement_findings(trace, existing, limits)]


def _finding(rule: str, trace: StatementTrace, obj: str, message: str, fix: str) -> Finding:
    r = _RULE[rule]
    where = f"{trace.file}:{trace.line}: "
    return Finding(r.code, r.name, r.severity, obj, where + message, fix)  # type: ignore[arg-type]


def _statement_findings(trace: StatementTrace, existing: set[str], limits: Limits) -> Iterator[Finding]:
    rewritten = [r for r in trace.rewritten if r in existing]
    if rewritten:
        size = sum(trace.sizes.get(r, 0) for r in rewritten)
        yield _finding(
            "table-rewrite",
            trace,
            rewritten[0],
            f"rewrote {', '.join(rewritten)} ({size} bytes here): every row is copied, every index rebuilt, "
            f"under {trace.strongest_lock or 'an exclusive lock'}.",
            "Avoid the rewrite (a new column + batched backfill + swap; a non-volatile default) "
            "or schedule it in a maintenance window.",
        )
    yield from _write_locks(trace, existing, limits)
    if trace.blocked_ms is not None and trace.blocked_ms > limits.max_blocked_ms:
        yield _finding(
            "workload-blocked",
            trace,
            _first_locked(trace, existing),
            f"runtime queries waited up to {trace.blocked_ms:.0f} ms on this statement "
            f"(limit {limits.max_blocked_ms:.0f} ms).",
            "Use the non-blocking form (CONCURRENTLY, NOT VALID + VALIDATE) "
            "or shorten the transaction holding the lock.",
        )
    if trace.error is not None:
        yield _finding(
            "statement-failed",
            trace,
            _first_locked(trace, existing) or trace.file,
            f"failed: {trace.error}; the migration stops here and its transaction rolls back.",
            "Retry with backoff when it is a lock timeout; fix the statement otherwise.",
        )


def _write_locks(trace: StatementTrace, existing: set[str], limits: Limits) -> Iterator[Finding]:
    blocking = [k for k in trace.locks if k.relation in existing and conflicts(k.mode, ROW_EXCLUSIVE)]
    scanned = [r for r in trace.scanned if r in existing]
    if blocking and scanned and not set(scanned) <= set(trace.rewritten):  # a rewrite reads it all anyway
        lock = blocking[0]
        yield _finding(
            "scan-under-write-lock",
            trace,
            scanned[0],
            f"read all of {', '.join(scanned)} while holding {lock.mode} on {lock.relation}: "
            "writers wait for the scan.",
            "Build indexes CONCURRENTLY; add constraints NOT VALID and VALIDATE them in a later transaction.",
        )
    strongest = max(blocking, key=lambda k: strength(k.mode), default=None)
    if trace.strongest_lock is None or not conflicts(trace.strongest_lock, ROW_EXCLUSIVE):
        return  # the write-blocking lock (if any) was taken by an earlier statement
    if strongest is not None and trace.lock_held_ms > limits.max_lock_ms:
        yield _finding(
            "long-write-lock",
            trace,
            strongest.relation,
            f"held {strongest.mode} on {strongest.relation} for {trace.lock_held_ms:.0f} ms "
            f"(limit {limits.max_lock_ms:.0f} ms): {', '.join(strongest.blocks)} wait that long.",
            "Split the change into short transactions, use CONCURRENTLY / NOT VALID forms, or batch it.",
        )
    if strongest is not None and trace.lock_timeout_ms == 0:
        yield _finding(
            "no-lock-timeout",
            trace,
            strongest.relation,
            f"took {strongest.mode} on {strongest.relation} with lock_timeout off: queued behind "
            "a long query, it would stall every query behind it.",
            "SET lock_timeout = '2s' (and retry) before statements that take strong locks.",
        )


def _first_locked(trace: StatementTrace, existing: set[str]) -> str:
    for lock in trace.locks + trace.waited_for:
        if lock.relation in existing:
            return lock.relation
    return trace.locks[0].relation if trace.locks else ""
