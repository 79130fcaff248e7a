"""What a trace rule reads: one statement's trace, the relations that existed before the
migration, and the limits; and `TraceRule`, the base of every trace rule (ADT1xx).

Every judgement reads the trace of a real run on the server's version, never the SQL
text: the same ALTER is a rewrite on one version and not on another, and the trace says
which one happened. Only relations that existed before the migration count: locking or
rewriting a table the migration itself created hurts nobody.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agentddl.checks.core.findings import Finding
from agentddl.checks.core.rules import Rule
from agentddl.checks.pg.lockmodes import LockMode, strength
from agentddl.checks.trace.types import HeldLock, StatementTrace


@dataclass(frozen=True)
class Limits:
    max_lock_ms: float = 1000.0  # a write-blocking lock held longer than this is an error
    max_blocked_ms: float = 200.0  # with --load: a workload call blocked longer than this


def blocks_writes(mode: str) -> bool:
    """Whether writers (ROW EXCLUSIVE: INSERT, UPDATE, DELETE) wait for a lock of `mode`."""
    found = LockMode.from_pg_locks(mode)
    return found is not None and found.blocks_writes()


@dataclass(frozen=True)
class Observed:
    """One statement's trace with what the rules ask of it."""

    trace: StatementTrace
    existing: set[str]  # relations that existed before the migration
    limits: Limits

    @property
    def write_blocking(self) -> list[HeldLock]:
        """Locks on existing relations that make writers wait."""
        return [k for k in self.trace.locks if k.relation in self.existing and blocks_writes(k.mode)]

    @property
    def took_write_blocking_lock(self) -> bool:
        """This statement (not an earlier one of its transaction) took a write-blocking lock."""
        mode = self.trace.strongest_lock
        return mode is not None and blocks_writes(mode) and bool(self.write_blocking)

    @property
    def strongest(self) -> HeldLock:
        return max(self.write_blocking, key=lambda k: strength(k.mode))

    def first_locked(self) -> str | None:
        """The first existing relation it locked or waited for (else any it locked)."""
        for lock in self.trace.locks + self.trace.waited_for:
            if lock.relation in self.existing:
                return lock.relation
        return self.trace.locks[0].relation if self.trace.locks else None


class TraceRule(Rule):
    """A finding judged from what one statement did on the scratch database."""

    family = "trace"

    def check(self, seen: Observed) -> Iterator[Finding]:
        raise NotImplementedError

    @classmethod
    def at(cls, seen: Observed, relation: str | None, message: str, fix: str) -> Finding:
        """A finding at the statement's source position, about `relation`."""
        trace = seen.trace
        return cls.finding(
            message, fix, file=trace.file, line=trace.line, column=trace.column, object=relation
        )
