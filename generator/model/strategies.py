"""What each lock strategy is, said once: its claim guard, how it behaves under
contention, when to choose it, and what a team does when its claims contend; and what
switching the profile to another strategy changes in the schema (derived, not restated).
PLAN.md's concurrency section and its risks read this (render/plan/)."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.generator.model.derive import derive
from agentddl.generator.model.types import SchemaModel
from agentddl.generator.profile import LockStrategy


@dataclass(frozen=True)
class Strategy:
    summary: str  # how a claim is guarded, in a phrase
    guard: str  # the same, in a comparison table's cell
    contention: str  # what happens when workers race
    choose_for: str  # when to switch to it
    relief: str  # what to check or change when claims contend


STRATEGIES: dict[LockStrategy, Strategy] = {
    LockStrategy.skip_locked: Strategy(
        summary="row lock on the live row, `FOR UPDATE SKIP LOCKED`",
        guard="row lock + SKIP LOCKED",
        contention="workers never wait on each other; locked rows are skipped",
        choose_for="many workers polling one queue (the default)",
        relief="claims already skip locked rows; check that no claim transaction waits on a model or "
        "tool call",
    ),
    LockStrategy.lease: Strategy(
        summary="claim = insert an attempt, guarded by a partial unique index",
        guard="insert guarded by the partial unique index",
        contention="no row lock while choosing; same-run inserters wait briefly",
        choose_for="claims by run id (not from a queue), or a claim that must be a single INSERT",
        relief="same-run inserters wait on the partial unique index: keep the claim transaction to "
        "the insert and one update",
    ),
    LockStrategy.optimistic: Strategy(
        summary="compare-and-set on the live row's fencing token, no lock held while deciding",
        guard="compare-and-set on `version`",
        contention="losers retry; cheap with few workers, wasteful with many",
        choose_for="a few workers, low contention, or a driver without row-lock support",
        relief="many lost compare-and-sets mean too many workers race for the queue head: switch to "
        "`skip_locked` (a queries-only change)",
    ),
    LockStrategy.advisory: Strategy(
        summary="transaction-level advisory lock on a hash of the run key",
        guard="advisory lock on a hash of the run key",
        contention="no row lock; locks live in shared memory",
        choose_for="claims that must also coordinate things that are not rows (e.g. a per-tenant "
        "concurrency cap)",
        relief="check `pg_locks` for advisory locks held by idle sessions; only transaction-level "
        "locks are used, so a stuck one means a stuck transaction",
    ),
}


@dataclass(frozen=True)
class IndexChange:
    added: tuple[str, ...]  # indexes the other strategy adds or defines differently
    dropped: tuple[str, ...]  # indexes it no longer needs


def switching_to(model: SchemaModel, strategy: LockStrategy) -> IndexChange:
    """What switching the profile's lock_strategy to `strategy` adds or drops: the indexes
    of that profile's model against this one's."""
    other = derive(model.profile.model_copy(update={"lock_strategy": strategy}))
    ours = {i.name: i for i in model.indexes}
    theirs = {i.name: i for i in other.indexes}
    added = tuple(n for n in theirs if n not in ours or theirs[n] != ours[n])
    dropped = tuple(n for n in ours if n not in theirs)
    return IndexChange(added, dropped)
