"""The layout generations of the schema: what today's derive() renders, and the older
one an install may still run. A revision records the layout it was rendered with
(`agentddl_layout`), so the next `agentddl generate` can move an install on online.

Layout 1 kept the queue, the lease and the status in the wide `runs` row: the claim
index was partial on `status`, so every claim, completion and failure was a non-HOT
update of an eight-index row, and heartbeats renewed an indexed `attempts` column.
Layout 2 moved the live set out into `run_queue` (model/live.py).
"""

from __future__ import annotations

from agentddl.generator.model.types import Index

RUN_ROW_QUEUE = 1
LIVE_SET = 2
LAYOUT = LIVE_SET  # what derive() renders unless told otherwise

# The predicates of layout 1's two partial indexes that are not on a key (each carries a
# clause the CHECKs make redundant, so a fenced write's lookup by key cannot match them).
LIVE_RUNS = "status IN ('running', 'waiting') AND finished_at IS NULL"
LAPSING_ATTEMPTS = "status = 'active' AND ended_at IS NULL"


def legacy_run_indexes(claim_columns: tuple[str, ...]) -> tuple[Index, ...]:
    """Layout 1's indexes on runs that the live set replaced (claim, live, finished)."""
    return (
        Index(
            "runs_claim_idx",
            "runs",
            claim_columns,
            serves=("claim_run",),
            why="claim: the next due queued run by priority; partial, so it holds only the queue",
            where="status = 'queued'",
        ),
        finished_runs_btree(),
        Index(
            "runs_live_idx",
            "runs",
            ("created_at",),
            serves=("health_stuck_runs",),
            why=(
                "health: live runs by age, stuck or nearing the history retention; partial; "
                "finished_at IS NULL keeps key lookups (status = 'running') on runs_pkey"
            ),
            where=LIVE_RUNS,
        ),
    )


def finished_runs_btree() -> Index:
    """Retention's index on finished runs as layout 1 had it, and as engines before 16
    still have it (there a BRIN index would block HOT as much as this one does)."""
    return Index(
        "runs_finished_idx",
        "runs",
        ("finished_at",),
        serves=("purge_finished_runs",),
        why="retention: finished runs older than the window, deleted in batches",
        where="finished_at IS NOT NULL",
    )


def legacy_attempt_index() -> Index:
    """Layout 1's lease-expiry index on attempts (the lease now lives on the live row)."""
    return Index(
        "attempts_lease_expiry_idx",
        "attempts",
        ("lease_expires_at",),
        serves=("claim_run", "expire_leases", "health_expired_leases"),
        why=(
            "takeover: active attempts whose lease has run out (claims take them over); "
            "ended_at IS NULL keeps key lookups on attempts_one_active_key"
        ),
        where=LAPSING_ATTEMPTS,
    )
