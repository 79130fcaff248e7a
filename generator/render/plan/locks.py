"""PLAN.md section 2: how workers claim, hold and lose runs under the profile's lock
strategy, and what each statement locks. Query names are those of `queries.sql`."""

from __future__ import annotations

from dataclasses import dataclass

from agentddl.generator.model import SchemaModel
from agentddl.generator.model.partitions import STEP_LOCK_TIMEOUT_MS
from agentddl.generator.model.strategies import STRATEGIES, switching_to
from agentddl.generator.profile import LockStrategy
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md

TITLE = "## 2. Concurrency and lock plan"


@dataclass(frozen=True)
class Names:
    """The model's names the concurrency story refers to."""

    runs: str
    live: str
    attempts: str
    claim_index: str
    one_active: str
    lease_expiry: str
    version_columns: str


def names(model: SchemaModel) -> Names:
    attempts = model.table("attempts")
    one_active = next(i.name for i in attempts.indexes if i.unique and i.where)
    return Names(
        runs=fig.qualified(model, "runs"),
        live=fig.qualified(model, "run_queue"),
        attempts=fig.qualified(model, "attempts"),
        claim_index=fig.path(model, "claim_run").index or "run_queue_pkey",
        one_active=one_active,
        lease_expiry=fig.path(model, "expire_leases").index or "run_queue_pkey",
        version_columns="`version` and `fencing_token`",
    )


def concurrency_section(model: SchemaModel) -> str:
    strategy = model.strategy
    n = names(model)
    return "\n\n".join(
        [
            TITLE,
            f"Strategy: **`{strategy.value}`** ({STRATEGIES[strategy].summary}).",
            "### Claiming a run",
            md.numbered(claim_steps(strategy, n)),
            "### Leases, heartbeats and takeover",
            lease_text(model, n),
            "### Fencing and version checks",
            fencing_text(n),
            "### Idempotent operations and the outbox",
            effects_text(model),
            "### Isolation level and locks per statement",
            isolation_text(),
            lock_table(strategy, n),
            "### The other strategies",
            comparison_table(model),
        ]
    )


def _expire_first(n: Names) -> str:
    return (
        f"The live set `{n.live}` holds one row per queued, waiting or running run; a row "
        "is *visible* once its `visible_at` has passed: the due time while queued, the "
        "lease's expiry while running. A lapsed lease is just a row that became visible "
        "again, so the claim needs no reaper: it takes the first visible row by priority, "
        "and a running one is taken over in the claim's own statement (its attempt becomes "
        "`expired`, `attempt.expired` is logged) before the new attempt opens. A run whose "
        "attempts are spent is left to `expire_leases` (its effective status is already "
        "`failed`)."
    )


def _candidates(n: Names) -> str:
    return (
        f"visible live rows come from `{n.claim_index}` (priority, then `visible_at`: one "
        "index for the due queued runs and the lapsed leases alike)"
    )


def _open_attempt(n: Names) -> str:
    return (
        "In the same statement: the live row becomes `running` under `fencing_token` + 1 "
        "with the sha256 of a fresh lease token and `visible_at = now() + lease`; the "
        "attempt is inserted; the durable run mirrors `running` (a HOT update: no index of "
        f"`{n.runs}` covers a column the claim changes); `attempt.started` is logged at the "
        f"live row's event counter. `{n.one_active}` refuses a second active attempt for "
        "the run whatever happened before."
    )


def claim_steps(strategy: LockStrategy, n: Names) -> list[str]:
    return [_expire_first(n), *_STRATEGY_STEPS[strategy](n)]


def _skip_locked_steps(n: Names) -> list[str]:
    return [
        f"`claim_run` in one transaction: {_candidates(n)}; `SELECT ... LIMIT 1 FOR UPDATE "
        "SKIP LOCKED` row-locks the first one no other worker holds, so workers never "
        "queue behind each other.",
        _open_attempt(n),
        "COMMIT. The worker keeps the plain lease token; the database keeps only its hash.",
    ]


def _lease_steps(n: Names) -> list[str]:
    return [
        f"`claim_run` picks a candidate without locking: {_candidates(n)}.",
        f"It inserts the next attempt `ON CONFLICT DO NOTHING`: `{n.one_active}` (unique "
        "on the run while `status = 'active'`) and the attempt's primary key are the "
        "claim itself. A second inserter for the same run waits for the first "
        "transaction and then inserts nothing. A lapsed run's attempt is expired in the "
        "same statement before the insert (step 1), or it would still count as active.",
        "Only an inserted attempt moves the live row (fencing token + 1, re-checking the "
        "token it read and that the row is still visible). If the run changed meanwhile "
        "(a transition), the attempt moves nothing: the next transition ends it, or "
        "`expire_leases` once its lease ran out.",
    ]


def _optimistic_steps(n: Names) -> list[str]:
    return [
        f"`claim_run` reads the first candidate with its fencing token, without locking: {_candidates(n)}.",
        "Compare-and-set in the same statement: the live row becomes `running` (fencing "
        "token and attempt + 1) only `WHERE fencing_token = <read token> AND visible_at <= "
        "now()`. One row: claimed. No row: another worker won; poll again. "
        "Under READ COMMITTED the loser waits for the winner's row lock, then re-checks "
        "the predicate against the new version, so exactly one wins.",
        f"The attempt is inserted in the same statement; `{n.one_active}` is the backstop.",
        "With many workers they all race for the head of the queue and most lose: that "
        "is the signal to switch to `skip_locked`.",
    ]


def _advisory_steps(n: Names) -> list[str]:
    return [
        f"`claim_run` in one statement: {_candidates(n)}; a short, materialized list of "
        "them is tried in order with `pg_try_advisory_xact_lock(hashtextextended(run_id::"
        "text, 0))`, stopping at the first lock granted, so no run beyond the claimed one "
        "is locked and the lock function never runs over the whole queue.",
        "The candidate list was read before the lock: the live row's update re-checks the "
        "fencing token read and the visibility, so a run claimed and committed meanwhile "
        "is not claimed twice.",
        _open_attempt(n),
        "COMMIT releases the advisory lock; from then on the attempt's lease is the claim. "
        "Transaction-level locks are safe behind a transaction-pooling proxy (PgBouncer); "
        "session-level ones are not. A hash collision only skips a candidate.",
    ]


_STRATEGY_STEPS = {
    LockStrategy.skip_locked: _skip_locked_steps,
    LockStrategy.lease: _lease_steps,
    LockStrategy.optimistic: _optimistic_steps,
    LockStrategy.advisory: _advisory_steps,
}


def lease_text(model: SchemaModel, n: Names) -> str:
    lease = model.profile.lease
    beat = fig.heartbeat_seconds(model)
    return md.bullets(
        [
            f"Lease: {md.duration(lease.duration)} (`lease.duration`). Heartbeat every "
            f"{md.duration(beat)} (a third of the lease, so two missed beats still leave "
            "time): `heartbeat` moves the live row's `visible_at` (the lease) where the "
            "fencing token and the token hash match and the lease has not expired.",
            "A heartbeat that updates zero rows means the lease is lost: the worker stops "
            "at once and writes nothing more.",
            f"Takeover by time alone: a crashed worker stops beating; at most "
            f"{md.duration(lease.duration)} later its lease has expired, and the next "
            "`claim_run` closes the attempt as `expired` with `interruption_reason = "
            "'lease_expired'` and takes the run over in the same statement; after "
            f"{lease.max_attempts} attempts (`lease.max_attempts`) the run is not claimed "
            "again and fails (`expire_leases`, optional housekeeping, records it). Every time "
            "is the database's `now()`; no worker clock is trusted.",
            "Status is derived from the lease at read time: `get_run`, `child_runs` and "
            "`health_stuck_runs` report `effective_status` (`running` only while the lease is "
            "live, `claimable` once it ran out, `failed` after the last attempt), so no "
            "reader waits for a sweep to see that a worker died.",
            f"`visible_at` is indexed (`{n.lease_expiry}`), so a heartbeat is not a HOT "
            f"update of the live row; `{n.live}` holds only the runs in flight, so that index "
            "stays small, and the wide durable run row is never touched by a heartbeat.",
        ]
    )


def fencing_text(n: Names) -> str:
    return md.bullets(
        [
            "Every claim increments the live row's `fencing_token` (mirrored on the run); "
            "the attempt records the token it got. "
            "The fencing token orders claims; it is not a secret. The lease token is: "
            "returned once, stored as its sha256, and presented with every write of the "
            "attempt's work (`heartbeat`, `append_event`, `save_checkpoint`, "
            "`reserve_operation`, `complete_operation` and the attempt's end), so a caller "
            "who guesses the fencing token still changes nothing.",
            "Every step write is fenced on the live row: `append_event` and "
            "`save_checkpoint` take their sequence number from the row's counter in the "
            "same `UPDATE ... RETURNING` that checks the fencing token, the lease token's "
            "hash and `state = 'running'` (never `max(seq) + 1`); the other writes hold "
            "the row `FOR SHARE`. A concurrent claim, cancel or reaper waits for the write "
            "(or skips it), or the write sees the new token. The live row first, then the "
            "attempt, then the run, in every query: a step that writes and then ends its "
            "attempt in one transaction cannot deadlock with a cancel or a reaper. A worker "
            "that paused past its lease and wakes up after a takeover holds an older "
            "token: its writes match zero rows and it must stop.",
            f"The {n.version_columns} checks keep every step's write constant-time: one run "
            "row by key, one event, optionally one checkpoint, operation and outbox row.",
        ]
    )


def effects_text(model: SchemaModel) -> str:
    operations = model.table("operations")
    relay = model.profile.role("relay")
    pending = fig.path(model, "relay_claim").index
    return md.bullets(
        [
            f"`reserve_operation` inserts ({', '.join(operations.primary_key)}) with the "
            f"request's `input_hash`, fenced like the history writes; a conflict on "
            f"`{operations.pk_name}` returns the existing row instead. Same `input_hash` "
            "and finished: the earlier result, no second effect. Different `input_hash`: "
            "a conflict reported to the caller, never a silent reuse. Still pending from an "
            "attempt that lost its lease: the new attempt takes it over and redoes the "
            "effect under the same key. `complete_operation` stores the result.",
            "`enqueue_outbox` writes the message in the same transaction as the state "
            "change: both commit or neither does.",
            f"The relay (role `{relay}`: SELECT and UPDATE on the outbox only) runs "
            f"`relay_claim`: pending rows through `{pending}`, `FOR UPDATE SKIP "
            "LOCKED`, marked with `claimed_by`/`claimed_until`; after publishing, "
            "`mark_delivered` sets `delivered_at`.",
            "A relay crash between publish and `mark_delivered` re-sends the message once "
            "`claimed_until` passes: delivery is at-least-once, and consumers dedupe by "
            "`message_id`.",
            "A delivery the consumer refuses is reported with `fail_delivery`: the claim is "
            f"released and the message waits {md.duration(model.profile.outbox.backoff)} "
            "(`outbox.backoff`), doubling with each attempt, before the next. After "
            f"{model.profile.outbox.max_attempts} attempts (`outbox.max_attempts`, the "
            "message's `max_attempts`), or when the last attempt's claim lapses (a poison "
            "message that kills its relay), it is dead-lettered (`dead_at`): never retried "
            "again on its own, listed by `dead_letters`, counted by `health_dead_letters`, "
            "and given a new round by `requeue_dead_letter` once the consumer is fixed.",
        ]
    )


def isolation_text() -> str:
    return (
        "All transactions run at READ COMMITTED. Each step writes by key with a predicate "
        "(version, fencing token, status), and READ COMMITTED re-evaluates that predicate "
        "on the newest row version after waiting, so no update is lost; SERIALIZABLE would "
        "add a retry path to every step without protecting another invariant. No "
        "transaction holds a row lock across a model or tool call."
    )


def _claim_locks(strategy: LockStrategy, n: Names) -> list[str]:
    row = {
        LockStrategy.skip_locked: "FOR UPDATE on one live row (others skipped, never waited "
        "for), then FOR NO KEY UPDATE on its run",
        LockStrategy.lease: f"none while choosing; the insert waits on `{n.one_active}` "
        "only for a concurrent claim of the same run",
        LockStrategy.optimistic: "FOR NO KEY UPDATE on one live row for the compare-and-set; "
        "losers wait for it, then match zero rows",
        LockStrategy.advisory: "an advisory lock per run in the lock manager, then FOR "
        "NO KEY UPDATE by the UPDATE",
    }[strategy]
    row += "; a lapsed run is just a visible live row, taken (and skipped) the same way"
    return ["`claim_run`", "ROW EXCLUSIVE on the live set, attempts, runs and events", row]


def lock_table(strategy: LockStrategy, n: Names) -> str:
    rows = [
        _claim_locks(strategy, n),
        ["`heartbeat`", "ROW EXCLUSIVE on the live set", "FOR NO KEY UPDATE on the live row"],
        [
            "`transition_run`",
            "ROW EXCLUSIVE on the live set, runs and attempts",
            "FOR UPDATE on the live row first, then FOR NO KEY UPDATE on the run",
        ],
        [
            "`append_event`, `save_checkpoint`",
            "ROW EXCLUSIVE on the partition and the live set",
            "FOR NO KEY UPDATE on the live row (the fence and the counter in one UPDATE): "
            "waits for, and holds off, a claim, transition or expiry of that same run "
            "only; other runs are untouched",
        ],
        [
            "`reserve_operation`",
            "ROW EXCLUSIVE on operations, ROW SHARE on the live set",
            "FOR SHARE on the live row; a concurrent insert of "
            "the same key waits on the "
            "primary key until the first commits",
        ],
        [
            "`relay_claim`",
            "ROW SHARE + ROW EXCLUSIVE on outbox",
            "FOR UPDATE SKIP LOCKED on pending messages",
        ],
        [
            "`expire_leases` (housekeeping)",
            "ROW EXCLUSIVE on the live set, attempts and runs",
            "FOR UPDATE SKIP LOCKED on each lapsed live row, then its attempt and run",
        ],
        [
            "partition maintenance",
            f"each step in its own transaction under a {STEP_LOCK_TIMEOUT_MS} ms `lock_timeout`, "
            "retried: ACCESS EXCLUSIVE on the partitioned parent and SHARE ROW EXCLUSIVE on runs "
            "to create or detach, ACCESS EXCLUSIVE on runs to drop (FK triggers)",
            "none (see section 4)",
        ],
    ]
    return md.table(["statement", "table lock", "row locks"], rows)


def comparison_table(model: SchemaModel) -> str:
    current = model.strategy
    rows = [
        [
            f"`{s.value}`" + (" (this profile)" if s is current else ""),
            traits.guard,
            traits.contention,
            traits.choose_for,
            _index_change(model, s),
        ]
        for s, traits in STRATEGIES.items()
    ]
    header = ["strategy", "claim guard", "under contention", "switch to it for", "index change"]
    return md.table(header, rows) + (
        "\n\nEvery strategy ends in the same live-row update and attempt insert guarded by the "
        "partial unique index, so workers can be rolled over to another strategy gradually "
        "once its indexes exist."
    )


def _index_change(model: SchemaModel, strategy: LockStrategy) -> str:
    """What switching to `strategy` adds or drops (model/strategies.py derives it)."""
    if strategy is model.strategy:
        return "-"
    change = switching_to(model, strategy)
    added, dropped = change.added, change.dropped
    if not added and not dropped:
        return "none: only the claim queries change"
    return "; ".join(
        part
        for part in (
            "adds/changes " + md.codes(added) if added else "",
            "drops " + md.codes(dropped) if dropped else "",
        )
        if part
    )
