"""Findings from what was observed (ADT1xx). Every judgement reads the trace of a real
run on the server's version, never the SQL text: the same ALTER is a rewrite on one
version and not on another, and the trace says which one happened.

Only relations that existed before the migration count: locking or rewriting a table
the migration itself created hurts nobody.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentddl.checks.core.findings import Finding, Severity
from agentddl.checks.pg.lockmodes import ROW_EXCLUSIVE, conflicts, strength
from agentddl.checks.trace.types import HeldLock, StatementTrace


@dataclass(frozen=True)
class Limits:
    max_lock_ms: float = 1000.0  # a write-blocking lock held longer than this is an error
    max_blocked_ms: float = 200.0  # with --load: a workload call blocked longer than this


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str


RULES = (
    Rule(
        "ADT101",
        "table-rewrite",
        "error",
        "The statement rewrote a table or index that existed before the migration (its relfilenode "
        "changed) while holding a lock that blocks writes.",
    ),
    Rule(
        "ADT107",
        "table-emptied",
        "error",
        "The statement left a table that existed before the migration with no rows (TRUNCATE).",
    ),
    Rule(
        "ADT108",
        "long-row-locks",
        "error",
        "Rows of an existing table updated or deleted stayed locked longer than --max-lock-ms "
        "(an unbatched backfill or purge): writers of those rows wait that long.",
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
        "The statement failed on the scratch database (e.g. lock_timeout fired); the migration stops there "
        "(a failed CONCURRENTLY build leaves an invalid index, named in the message).",
    ),
)
_RULE = {r.name: r for r in RULES}


def judge(traces: list[StatementTrace], existing: set[str], limits: Limits) -> list[Finding]:
    """Every finding of every statement, in statement order."""
    rules = (
        _rewrite,
        _emptied,
        _scan_under_write_lock,
        _long_write_lock,
        _long_row_locks,
        _no_lock_timeout,
        _workload_blocked,
        _failed,
    )
    seen = [_Seen(trace, existing) for trace in traces]
    return [f for statement in seen for rule in rules for f in rule(statement, limits)]


@dataclass(frozen=True)
class _Seen:
    """One statement's trace with what the rules ask of it."""

    trace: StatementTrace
    existing: set[str]

    @property
    def write_blocking(self) -> list[HeldLock]:
        """Locks on existing relations that make writers (RowExclusiveLock) wait."""
        return [
            k for k in self.trace.locks if k.relation in self.existing and conflicts(k.mode, ROW_EXCLUSIVE)
        ]

    @property
    def took_write_blocking_lock(self) -> bool:
        """This statement (not an earlier one of its transaction) took a write-blocking lock."""
        mode = self.trace.strongest_lock
        return mode is not None and conflicts(mode, ROW_EXCLUSIVE) and bool(self.write_blocking)

    @property
    def strongest(self) -> HeldLock:
        return max(self.write_blocking, key=lambda k: strength(k.mode))

    def first_locked(self) -> str:
        for lock in self.trace.locks + self.trace.waited_for:
            if lock.relation in self.existing:
                return lock.relation
        return self.trace.locks[0].relation if self.trace.locks else self.trace.file

    def finding(self, rule: str, obj: str, message: str, fix: str) -> Finding:
        r = _RULE[rule]
        return Finding(
            r.code, r.name, r.severity, obj, f"{self.trace.file}:{self.trace.line}: {message}", fix
        )


def _rewrite(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    """A rewrite while writers are locked out (REINDEX CONCURRENTLY rewrites an index too,
    under a lock that blocks nobody: no finding). A bare statement too quick for the
    watcher to see its locks counts when it rewrote a table (VACUUM FULL, CLUSTER): only
    REINDEX CONCURRENTLY rewrites without a write-blocking lock, and only indexes."""
    rewritten = [r for r in seen.trace.rewritten if r in seen.existing]
    if seen.trace.emptied:
        return  # TRUNCATE: new, empty files, nothing copied (table-emptied says what happened)
    unseen_table_rewrite = not seen.trace.locks and bool(set(seen.trace.rewritten_tables) & seen.existing)
    if rewritten and (seen.write_blocking or unseen_table_rewrite):
        size = sum(seen.trace.sizes.get(r, 0) for r in rewritten)
        yield seen.finding(
            "table-rewrite",
            rewritten[0],
            f"rewrote {', '.join(rewritten)} ({size} bytes here): every row is copied, every index rebuilt, "
            f"under {seen.trace.strongest_lock or 'an exclusive lock'}.",
            "Avoid the rewrite (a new column + batched backfill + swap; a non-volatile default) "
            "or schedule it in a maintenance window.",
        )


def _emptied(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    emptied = [r for r in seen.trace.emptied if r in seen.existing]
    if emptied:
        size = sum(seen.trace.sizes.get(r, 0) for r in emptied)
        yield seen.finding(
            "table-emptied",
            emptied[0],
            f"emptied {', '.join(emptied)} ({size} bytes here): every row is gone, and the code "
            "running during the deploy reads and writes it.",
            "Delete in batches what must go; drop a table only in a release after nothing uses it.",
        )


def _scan_under_write_lock(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    scanned = [r for r in seen.trace.scanned if r in seen.existing]
    if not scanned or not seen.write_blocking or set(scanned) <= set(seen.trace.rewritten):
        return  # nothing read, or read under a harmless lock, or a rewrite (reported as one)
    lock = seen.write_blocking[0]
    yield seen.finding(
        "scan-under-write-lock",
        scanned[0],
        f"read all of {', '.join(scanned)} while holding {lock.mode} on {lock.relation}: "
        "writers wait for the scan.",
        "Build indexes CONCURRENTLY; add constraints NOT VALID and VALIDATE them in a later transaction.",
    )


def _long_write_lock(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    if seen.took_write_blocking_lock and seen.trace.lock_held_ms > limits.max_lock_ms:
        lock = seen.strongest
        yield seen.finding(
            "long-write-lock",
            lock.relation,
            f"held {lock.mode} on {lock.relation} for {seen.trace.lock_held_ms:.0f} ms "
            f"(limit {limits.max_lock_ms:.0f} ms): {', '.join(lock.blocks)} wait that long.",
            "Split the change into short transactions, use CONCURRENTLY / NOT VALID forms, or batch it.",
        )


def _long_row_locks(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    """Row locks: an UPDATE or DELETE keeps every row it changed locked until commit. Not
    when the statement took a write-blocking table lock: long-write-lock reports that."""
    written = {r: n for r, n in seen.trace.written.items() if r in seen.existing}
    if not written or seen.took_write_blocking_lock or seen.trace.lock_held_ms <= limits.max_lock_ms:
        return
    rows = ", ".join(f"{n} rows of {r}" for r, n in sorted(written.items()))
    yield seen.finding(
        "long-row-locks",
        min(written),
        f"updated or deleted {rows}, locked until commit {seen.trace.lock_held_ms:.0f} ms later "
        f"(limit {limits.max_lock_ms:.0f} ms): writes to those rows wait that long.",
        "Batch it: a few thousand rows per transaction (WHERE id BETWEEN ... or a LIMITed "
        "subquery), committed one after the other.",
    )


def _no_lock_timeout(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    if seen.took_write_blocking_lock and seen.trace.lock_timeout_ms == 0:
        lock = seen.strongest
        yield seen.finding(
            "no-lock-timeout",
            lock.relation,
            f"took {lock.mode} on {lock.relation} with lock_timeout off: queued behind "
            "a long query, it would stall every query behind it.",
            "SET lock_timeout = '2s' (and retry) before statements that take strong locks.",
        )


def _workload_blocked(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    blocked = seen.trace.blocked_ms
    if blocked is not None and blocked > limits.max_blocked_ms:
        yield seen.finding(
            "workload-blocked",
            seen.first_locked(),
            f"runtime queries waited up to {blocked:.0f} ms on this statement "
            f"(limit {limits.max_blocked_ms:.0f} ms).",
            "Use the non-blocking form (CONCURRENTLY, NOT VALID + VALIDATE) "
            "or shorten the transaction holding the lock.",
        )


def _failed(seen: _Seen, limits: Limits) -> Iterator[Finding]:
    if seen.trace.error is None:
        return
    message = f"failed: {seen.trace.error}; the migration stops here and its transaction rolls back."
    fix = "Retry with backoff when it is a lock timeout; fix the statement otherwise."
    if seen.trace.left_invalid:  # docs, CREATE INDEX: "Building Indexes Concurrently"
        left = ", ".join(seen.trace.left_invalid)
        message = (
            f"failed: {seen.trace.error}; it left the invalid index {left} behind: no query uses it, "
            "every write still maintains it, and a retry with IF NOT EXISTS would keep it as it is."
        )
        fix = f"DROP INDEX CONCURRENTLY {left}, fix the cause (e.g. duplicate rows), then build it again."
    obj = seen.trace.left_invalid[0] if seen.trace.left_invalid else seen.first_locked()
    yield seen.finding("statement-failed", obj, message, fix)
