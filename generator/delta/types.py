"""The delta between two schemas: steps, each with the lock it takes and how it undoes,
and the changes that cannot be made online (refused, with a plan)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agentddl.generator.errors import AgentDDLError

# Expand/contract order: new objects first, then validation, then the switch, then the
# old objects go. `prepare` holds what takes no table lock (roles, functions, grants).
Phase = Literal["prepare", "expand", "validate", "switch", "contract"]
PHASES: tuple[Phase, ...] = ("prepare", "expand", "validate", "switch", "contract")

# How a step runs (every step runs outside Alembic's transaction, in an autocommit block):
# - locked: its statements as one transaction under a short lock_timeout, retried;
# - alone: each statement on its own (CONCURRENTLY: waits for transactions, never queues them);
# - plain: each statement on its own, no table lock to wait for;
# - partitions: an index built CONCURRENTLY on each partition that exists when it runs.
Run = Literal["locked", "alone", "plain", "partitions"]

# What the step does to the data: `catalog` changes only the catalog (instant once the
# lock is granted); `scan` reads the table (VALIDATE); `build` builds an index; `backfill`
# copies rows into a new table in committed batches. No step rewrites a table: a change
# that would is refused.
Work = Literal["catalog", "scan", "build", "backfill"]

DURATION = {
    "catalog": "instant (catalog only)",
    "scan": "grows with the table (reads every row, writes nothing)",
    "build": "grows with the table (index build, writes continue)",
    "backfill": "grows with the rows it copies (batched inserts, each batch committed)",
}

Key = tuple[str, str, str]  # (kind, table or "", name)


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Difference:
    """One schema object whose definition differs; ABSENT on the side it is missing."""

    key: Key
    old: Any
    new: Any

    @property
    def added(self) -> bool:
        return self.old is ABSENT

    @property
    def removed(self) -> bool:
        return self.new is ABSENT


@dataclass(frozen=True)
class PartitionedIndex:
    """An index on a partitioned table, built the online way: the parent ON ONLY, then
    each partition's index CONCURRENTLY and attached (run time: pg_inherits)."""

    schema: str
    table: str
    parent_index: str  # the (temporary) name of the partitioned index
    definition: str  # what follows `ON <partition>`: `USING brin (created_at)`


@dataclass(frozen=True)
class Step:
    phase: Phase
    summary: str  # what it does, one line
    statements: tuple[str, ...]  # the SQL as it runs
    run: Run
    lock: str | None  # the strongest table lock it takes, as PostgreSQL names it
    tables: tuple[str, ...]  # the tables it locks, schema-qualified
    work: Work
    rollback: str  # how to undo it, one line
    partitioned: PartitionedIndex | None = None
    guard: str | None = None  # a condition that must hold first (a SQL boolean), else the step fails
    # `agentddl lint` rules this step knowingly breaks, each with the reason (an ignore comment)
    lint_ignores: tuple[tuple[str, str], ...] = ()
    # a role handover: the new roles get what the old ones have (expand), then, once every
    # client uses the new roles, the old ones lose it (contract): two revisions
    handover: Literal["expand", "contract"] | None = None

    @property
    def duration(self) -> str:
        return DURATION[self.work]

    def as_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "summary": self.summary,
            "statements": list(self.statements),
            "runs": self.run,
            "lock": self.lock,
            "tables": list(self.tables),
            "rewrites": False,
            "scans": self.work == "scan",
            "work": self.work,
            "duration": self.duration,
            "rollback": self.rollback,
            "handover": self.handover,
        }


@dataclass(frozen=True)
class Refusal:
    """A change with no online recipe: why, and the multi-step plan to make it by hand."""

    key: str  # the profile key (`tenancy.column`) or the schema object
    change: str  # `tenancy.column: null -> tenant_id`
    reason: str
    plan: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "change": self.change, "reason": self.reason, "plan": list(self.plan)}


@dataclass(frozen=True)
class Delta:
    """What takes a schema from one profile to another."""

    changes: tuple[str, ...]  # the profile keys that differ, `key: old -> new`
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()  # what the operator does before or after (app deploys, ...)
    refusals: tuple[Refusal, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.steps

    @property
    def hands_over_roles(self) -> bool:
        """Whether the change needs two revisions: clients move to the new roles between."""
        return any(step.handover == "contract" for step in self.steps)

    def without(self, handover: str) -> Delta:
        return replace(self, steps=tuple(s for s in self.steps if s.handover != handover))

    def only(self, handover: str) -> Delta:
        return replace(self, steps=tuple(s for s in self.steps if s.handover == handover))


class RefusedChange(AgentDDLError):
    """A profile change that cannot be made online: nothing is written."""

    def __init__(self, refusal: Refusal, where: str = "") -> None:
        self.refusal = refusal
        self.details = tuple(f"{n}. {line}" for n, line in enumerate(refusal.plan, start=1))
        head = f"{where}: " if where else ""
        super().__init__(
            f"{head}{refusal.change}: cannot be changed online: {refusal.reason}; nothing written. Plan:"
        )
