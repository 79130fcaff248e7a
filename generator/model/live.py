"""The live set: one small, churny row per live run (queued, waiting, running).

What the claim and the lease need to find lives here, not in the wide durable `runs`
row: the row's one index (priority, visible_at) serves the due claim and the takeover of
a lapsed lease alike, because a lapsed lease is just a row that became visible again
(the message-visibility model of the fast queues). The fenced writes allocate their
sequence numbers from this row's counters. A run leaves the live set when it ends
(completion deletes the row), so the table stays as small as the work in flight.
"""

from __future__ import annotations

import agentddl.generator.model.tuning as tuning
from agentddl.generator.model.scope import Scope, sql_list
from agentddl.generator.model.types import Check, Column, Index, Table

LIVE_STATES = ("queued", "waiting", "running")
# A waiting run is visible at its wake time, or never while it waits on a signal.
NEVER = "'infinity'::timestamptz"


def run_queue(s: Scope) -> Table:
    return Table(
        name="run_queue",
        comment="The live set: one row per queued, waiting or running run; deleted when the run ends.",
        columns=(
            *s.tenant_columns(),
            Column("run_id", "uuid"),
            Column("run_created_at", "timestamptz", comment="The run's created_at (history partition key)."),
            Column("state", "text", default="'queued'", comment="queued, waiting or running."),
            Column("priority", "smallint", default="0", comment="Higher is claimed first."),
            Column(
                "visible_at",
                "timestamptz",
                default="now()",
                comment="Claimable from here: the due time while queued, the lease expiry while running.",
            ),
            Column(
                "max_attempts",
                "integer",
                default=str(s.profile.lease.max_attempts),
                comment="The run's max_attempts (the claim needs no join).",
            ),
            Column("attempt_no", "integer", default="0", comment="Attempts started so far."),
            Column("fencing_token", "bigint", default="0", comment="Bumped by every claim."),
            Column(
                "lease_token_hash",
                "bytea",
                nullable=True,
                comment="sha256 of the running attempt's lease token; the token is never stored.",
            ),
            Column("worker_id", "text", nullable=True, comment="Which worker holds the lease."),
            Column("event_seq", "integer", default="0", comment="The run's last event seq (counter)."),
            Column(
                "checkpoint_seq", "integer", default="0", comment="The run's last checkpoint seq (counter)."
            ),
        ),
        primary_key=s.keyed("run_id"),
        checks=_checks(),
        foreign_keys=(s.run_fk("run_queue", "a live row belongs to a run of the same tenant"),),
        indexes=(
            Index(
                "run_queue_visible_idx",
                "run_queue",
                s.claim_keyed("priority DESC", "visible_at"),
                serves=("claim_run", "claim_runs", "expire_leases", "health_expired_leases"),
                why=(
                    "claim: the next visible row by priority, a due queued run or a lapsed lease "
                    "alike; the only index besides the key, so counter updates stay HOT"
                ),
            ),
        ),
        storage=live_table_storage(),
    )


def _checks() -> tuple[Check, ...]:
    return (
        Check("run_queue_state_check", f"state IN ({sql_list(LIVE_STATES)})", "state is a live state"),
        Check(
            "run_queue_lease_check",
            "(state = 'running') = (lease_token_hash IS NOT NULL AND worker_id IS NOT NULL)",
            "a running row holds a lease, other rows none",
        ),
        Check(
            "run_queue_token_hash_check",
            "octet_length(lease_token_hash) = 32",
            "a sha256 hash, not a token",
        ),
        Check(
            "run_queue_counters_check",
            "attempt_no >= 0 AND fencing_token >= 0 AND event_seq >= 0 AND checkpoint_seq >= 0"
            " AND max_attempts > 0",
            "counters only grow from zero",
        ),
    )


def live_table_storage() -> tuple[tuple[str, str], ...]:
    """A small table rewritten all day: half of each page free so the counter updates
    (unindexed columns) stay HOT on their page, and autovacuum by a fixed number of dead
    rows, not a share of a table that is tiny (a scale factor would wait for nothing)."""
    return (
        ("fillfactor", "50"),
        ("autovacuum_vacuum_scale_factor", "0"),
        ("autovacuum_vacuum_threshold", str(tuning.LIVE_VACUUM_THRESHOLD)),
        ("autovacuum_vacuum_cost_delay", "0"),
    )
