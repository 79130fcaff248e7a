"""What `agentddl trace` observed: one record per migration statement, and the workload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class HeldLock:
    """A relation lock the migrating session held, with its pg_locks mode name."""

    relation: str  # schema-qualified, e.g. agent.events
    mode: str  # as pg_locks names it: AccessExclusiveLock, ShareLock, ...
    blocks: tuple[str, ...] = ()  # runtime query kinds it conflicts with: reads, writes, claims


@dataclass
class StatementTrace:
    """What one statement did on the scratch database."""

    file: str
    line: int
    sql: str
    in_transaction: bool  # inside the migration's own BEGIN..COMMIT (or one the runner adds)
    column: int | None = None  # 1-based; None for an Alembic revision's op.* line
    locks: list[HeldLock] = field(default_factory=list)
    waited_for: list[HeldLock] = field(default_factory=list)  # locks it queued for, not granted
    rewritten: list[str] = field(default_factory=list)
    emptied: list[str] = field(default_factory=list)  # rewritten tables left with no rows (TRUNCATE)
    rewritten_tables: list[str] = field(default_factory=list)  # of `rewritten`, the tables
    scanned: list[str] = field(default_factory=list)
    written: dict[str, int] = field(default_factory=dict)  # rows updated or deleted, per table
    created: list[str] = field(default_factory=list)  # relations new in this statement's transaction
    duration_ms: float = 0.0
    strongest_lock: str | None = None  # the strongest lock it newly took (user relations)
    lock_held_ms: float = 0.0  # from its start until its transaction ended (0: it took no lock)
    blocked_ms: float | None = None  # with --load: the longest workload wait it caused
    lock_timeout_ms: int = 0
    statement_timeout_ms: int = 0
    error: str | None = None  # SQLSTATE and message when the statement failed
    left_invalid: list[str] = field(default_factory=list)  # invalid indexes its failure left behind
    sizes: dict[str, int] = field(default_factory=dict)  # bytes before it ran, of what it rewrote or scanned

    def as_json(self, with_load: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "file": self.file,
            "line": self.line,
            "sql": self.sql,
            "in_transaction": self.in_transaction,
            "locks": [{"relation": k.relation, "mode": k.mode, "blocks": list(k.blocks)} for k in self.locks],
            "waited_for": [{"relation": k.relation, "mode": k.mode} for k in self.waited_for],
            "rewritten": self.rewritten,
            "emptied": self.emptied,
            "scanned": self.scanned,
            "written": self.written,
            "duration_ms": round(self.duration_ms, 1),
            "strongest_lock": self.strongest_lock,
            "lock_held_ms": round(self.lock_held_ms, 1),
            "lock_timeout_ms": self.lock_timeout_ms,
            "statement_timeout_ms": self.statement_timeout_ms,
        }
        if with_load:
            data["blocked_ms"] = round(self.blocked_ms or 0.0, 1)
        if self.error is not None:
            data["error"] = self.error
        if self.left_invalid:
            data["left_invalid"] = self.left_invalid
        return data


@dataclass(frozen=True)
class Throughput:
    """Workload queries completed per second around the migration."""

    before: float
    during: float
    after: float
    queries: int
    connections: int
    errors: int

    def as_json(self) -> dict[str, Any]:
        return {
            "before_qps": round(self.before, 1),
            "during_qps": round(self.during, 1),
            "after_qps": round(self.after, 1),
            "queries": self.queries,
            "connections": self.connections,
            "errors": self.errors,
        }
