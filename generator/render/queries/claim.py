"""claim_run, one statement per lock strategy (data-modifying CTEs).

Every variant: pick the next run to work on, make it running (version, fencing_token and
attempt_count + 1), open its attempt with a hashed lease token, and return what the
worker needs. No row means nothing was claimed.

The next run is a *lapsed* one first (running, but its active attempt's lease ran out:
the worker died or stalled) and otherwise the next due queued run (priority, then
wake_at). A lapsed run is taken over in the same statement: its attempt ends as
'expired', fenced by the run's fencing token, before the new attempt opens. No reaper
and no expire_leases call is needed for a crashed worker's run to move on.
"""

from __future__ import annotations

from collections.abc import Callable

from agentddl.generator.profile import LockStrategy
from agentddl.generator.render.queries.base import LEASE_END, LEASE_HASH, Ctx, Query, where

ADVISORY_SCAN = 32  # candidates the advisory claim tries before giving up this round
CLAIMED = ("run_id", "created_at", "kind", "input", "version", "fencing_token", "attempt_count")
ATTEMPT = ("run_id", "attempt_no", "fencing_token", "worker_id", "lease_token_hash", "lease_expires_at")


def claim_run(c: Ctx) -> Query:
    strategy = c.model.profile.lock_strategy
    body, how = _BUILDERS[strategy](c)
    scope = "across tenants" if c.tenant else "of any kind"
    if c.claim_is_tenant_scoped:
        why = "distributed: one shard, a router query" if c.distributed else "row-level security"
        scope = f"within one {c.tenant} ({why})"
    doc = (
        f"Claim the next run {scope} and open its attempt ({strategy.value}): a lapsed run",
        "(running, its lease ran out) first, taken over in this statement (its attempt",
        "ends 'expired'); else the next due queued run. Runs whose attempts are spent are",
        "left to expire_leases (their effective status is already 'failed').",
        *how,
        f"index: {c.path('claim_run').index} (queued), attempts_lease_expiry_idx (lapsed);",
        "attempts_one_active_key keeps one live attempt",
        "returns: run key, run_created_at, kind, input, version, attempt_no, fencing_token,",
        "lease_expires_at, last_checkpoint_seq, last_event_seq (null: nothing written yet,",
        "always so on a first attempt); or no row",
    )
    return Query(
        "claim_run",
        "<!",
        doc,
        f"{body}\n{_result(c)}",
        params=tuple(
            [
                *(c.tenant_param() if c.claim_is_tenant_scoped else []),
                "worker_id text",
                "lease_token text (random, kept by the worker)",
                "lease_seconds integer",
            ]
        ),
    )


def _scoped(c: Ctx, alias: str) -> list[str]:
    return c.tenant_filter(alias) if c.claim_is_tenant_scoped else []


def _lapsed(c: Ctx, *, lock: str = "", limit: int = 1, extra: str = "") -> str:
    """Running runs whose active attempt's lease ran out (and whose attempts are not
    spent), oldest expiry first, through attempts_lease_expiry_idx (whose predicate the
    `ended_at IS NULL` clause matches: model/tables.py's LAPSING_ATTEMPTS)."""
    return f"""SELECT {c.cols("a", "run_id")}, a.attempt_no AS lapsed_attempt, r.version{extra}
    FROM {c.t("attempts")} AS a
    JOIN {c.t("runs")} AS r ON {c.join("r", "a", "run_id")}
    {
        where(
            *_scoped(c, "a"),
            "a.status = 'active'",
            "a.ended_at IS NULL",
            "a.lease_expires_at < now()",
            "r.status = 'running'",
            "r.fencing_token = a.fencing_token",
            "r.attempt_count < r.max_attempts",
            pad=4,
        )
    }
    ORDER BY a.lease_expires_at
    LIMIT {limit}{lock}"""


def _queued(c: Ctx, *, lock: str = "", limit: int = 1, extra: str = "", also: tuple[str, ...] = ()) -> str:
    return f"""SELECT {c.cols("r", "run_id")}, NULL::integer AS lapsed_attempt, r.version{extra}
    FROM {c.t("runs")} AS r
    {where(*_scoped(c, "r"), "r.status = 'queued'", "r.wake_at <= now()", *also, pad=4)}
    ORDER BY r.priority DESC, r.wake_at
    LIMIT {limit}{lock}"""


def _ended(c: Ctx) -> str:
    """The lapsed attempt of the candidate ends as expired (no row for a queued one)."""
    return f"""ended AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    FROM candidate AS k
    {
        where(
            c.join("a", "k", "run_id"),
            "a.attempt_no = k.lapsed_attempt",
            "a.status = 'active'",
            "a.lease_expires_at < now()",
            pad=4,
        )
    }
    RETURNING {c.cols("a", "run_id", "fencing_token")}
)"""


def _taken_over(c: Ctx, run: str, candidate: str) -> str:
    """A queued candidate must still be queued; a lapsed one must have had its attempt
    expired by this statement (so the new attempt never meets the old one), under the
    fencing token the expired attempt held."""
    return (
        f"CASE WHEN {candidate}.lapsed_attempt IS NULL THEN {run}.status = 'queued'\n"
        f"        ELSE {run}.status = 'running' AND EXISTS (\n"
        f"            SELECT FROM ended AS e WHERE {c.join('e', run, 'run_id')}\n"
        f"                AND e.fencing_token = {run}.fencing_token) END"
    )


def _claim_update(c: Ctx, *checks: str) -> str:
    """The run becomes (or stays) running under a new fencing token; the counters the
    attempt takes are returned."""
    returned = c.cols("r", *CLAIMED)
    return f"""claimed AS (
    UPDATE {c.t("runs")} AS r
    SET status = 'running',
        version = r.version + 1,
        fencing_token = r.fencing_token + 1,
        attempt_count = r.attempt_count + 1,{_first_claim(c)}
        updated_at = now()
    FROM candidate AS k
    {where(c.join("r", "k", "run_id"), _taken_over(c, "r", "k"), *checks, pad=4)}
    RETURNING {returned}
)"""


def _first_claim(c: Ctx) -> str:
    """model.details: the run's started_at is its first claim's time. LEAST skips a NULL, so
    this is coalesce(r.started_at, now()) in a form Citus runs (no STABLE function inside
    COALESCE or CASE of an UPDATE: verify --citus, ADS105)."""
    return "\n        started_at = least(r.started_at, now())," if c.model.profile.model.details else ""


def _update_based(c: Ctx, *checks: str) -> str:
    return f"{_ended(c)},\n{_claim_update(c, *checks)}{_attempt_insert(c)}"


def _skip_locked(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH lapsed AS (
    {_lapsed(c, lock=f"{chr(10)}    FOR UPDATE OF a, r SKIP LOCKED")}
),
queued AS (
    {_queued(c, lock=f"{chr(10)}    FOR UPDATE SKIP LOCKED")}
),
candidate AS (
    SELECT * FROM lapsed
    UNION ALL
    SELECT * FROM queued
    LIMIT 1
),
{_update_based(c)}"""
    how = (
        "FOR UPDATE SKIP LOCKED: concurrent workers skip rows another claim (or a step",
        "writing under the lapsed lease) holds, so each gets a different run without",
        "waiting. The queued branch is read only when no lapsed run is found.",
    )
    return body, how


def _optimistic(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH lapsed AS (
    {_lapsed(c)}
),
queued AS (
    {_queued(c)}
),
candidate AS (
    SELECT * FROM lapsed
    UNION ALL
    SELECT * FROM queued
    LIMIT 1
),
{_update_based(c, "r.version = k.version")}"""
    how = (
        "Compare-and-set: the candidate is read without locks; the UPDATE re-checks",
        "version and status on the newest row (READ COMMITTED), so of two workers on",
        "one run exactly one gets a row (for a lapsed run, the one whose expiry of the",
        "old attempt went through). Losers retry; best at low contention.",
    )
    return body, how


def _advisory(c: Ctx) -> tuple[str, tuple[str, ...]]:
    ranked = ", r.priority, r.wake_at, {rank} AS lapsed_first"
    body = f"""WITH candidates AS MATERIALIZED (
    ({_lapsed(c, limit=ADVISORY_SCAN, extra=ranked.format(rank=0))})
    UNION ALL
    ({_queued(c, limit=ADVISORY_SCAN, extra=ranked.format(rank=1))})
),
candidate AS (
    SELECT {c.cols("o", "run_id")}, o.lapsed_attempt, o.version
    FROM (SELECT * FROM candidates ORDER BY lapsed_first, priority DESC, wake_at OFFSET 0) AS o
    WHERE pg_try_advisory_xact_lock(hashtextextended(o.run_id::text, 0))
    LIMIT 1
),
{_update_based(c, "r.version = k.version")}"""
    how = (
        "Transaction-level advisory lock on hashtextextended(run_id::text, 0): at most",
        f"{ADVISORY_SCAN} lapsed and {ADVISORY_SCAN} due runs are read into a MATERIALIZED list",
        "first, and the lock is tried in order on that list only (lapsed first), stopping",
        "at the first success. OFFSET 0 keeps the planner from pushing the lock filter",
        "below the sort, where it would lock every candidate. The UPDATE's version check",
        "rejects a run claimed and committed since the list was read. The lock ends with",
        "the transaction.",
    )
    return body, how


def _lease(c: Ctx) -> tuple[str, tuple[str, ...]]:
    next_attempt = (
        f"(SELECT coalesce(max(p.attempt_no), 0) + 1\n         FROM {c.t('attempts')} AS p\n"
        f"         {where(c.join('p', 'r', 'run_id'))}) AS attempt_no"
    )
    extra = f",\n        r.fencing_token + 1 AS fencing_token,\n        {next_attempt}"
    no_active = (
        f"NOT EXISTS (SELECT 1 FROM {c.t('attempts')} AS x\n"
        f"            WHERE {c.join('x', 'r', 'run_id')} AND x.status = 'active')"
    )
    queued = _queued(c, extra=extra, also=(no_active,))
    body = f"""WITH lapsed AS (
    {_lapsed(c, extra=extra)}
),
queued AS (
    {queued}
),
candidate AS (
    SELECT * FROM lapsed
    UNION ALL
    SELECT * FROM queued
    LIMIT 1
),
{_ended(c)},
attempt AS (
    INSERT INTO {c.t("attempts")} AS a
        ({
        c.names("run_id", "attempt_no", "fencing_token", "worker_id", "lease_token_hash", "lease_expires_at")
    })
    SELECT {c.cols("k", "run_id")}, k.attempt_no, k.fencing_token, CAST(:worker_id AS text),
        {LEASE_HASH}, {LEASE_END}
    FROM candidate AS k
    WHERE k.lapsed_attempt IS NULL OR EXISTS (SELECT FROM ended AS e WHERE {c.join("e", "k", "run_id")})
    ON CONFLICT DO NOTHING
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token", "lease_expires_at")}
),
claimed AS (
    UPDATE {c.t("runs")} AS r
    SET status = 'running',
        version = r.version + 1,
        fencing_token = a.fencing_token,
        attempt_count = a.attempt_no,{_first_claim(c)}
        updated_at = now()
    FROM attempt AS a
    {
        where(
            c.join("r", "a", "run_id"),
            "r.status IN ('queued', 'running')",
            "r.fencing_token = a.fencing_token - 1",
            pad=4,
        )
    }
    RETURNING {c.cols("r", *CLAIMED)}
)"""
    how = (
        "The claim is the INSERT of the attempt: attempts_one_active_key and the",
        "primary key (attempt_no = last + 1) make a second live attempt impossible, and",
        "ON CONFLICT DO NOTHING turns a lost race or a stale snapshot into no row. A",
        "lapsed run's attempt is expired first in this statement (of two claimers, the",
        "second finds it no longer active and inserts nothing). Only an inserted attempt",
        "moves the run. If the run changed meanwhile (a transition), the attempt is left",
        "unclaimed: the next transition_run ends it, or the next claim takes it over once",
        "its lease runs out.",
    )
    return body, how


_BUILDERS: dict[LockStrategy, Callable[[Ctx], tuple[str, tuple[str, ...]]]] = {
    LockStrategy.skip_locked: _skip_locked,
    LockStrategy.optimistic: _optimistic,
    LockStrategy.advisory: _advisory,
    LockStrategy.lease: _lease,
}


def _attempt_insert(c: Ctx) -> str:
    """The attempt of a run claimed by an UPDATE (every strategy but lease)."""
    return f""",
attempt AS (
    INSERT INTO {c.t("attempts")} AS a
        ({c.names(*ATTEMPT)})
    SELECT {c.cols("k", "run_id")}, k.attempt_count, k.fencing_token, CAST(:worker_id AS text),
        {LEASE_HASH}, {LEASE_END}
    FROM claimed AS k
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token", "lease_expires_at")}
)"""


def _latest(c: Ctx, table: str, alias: str) -> str:
    """The run's last seq in `table`. Checkpoints are written only under an attempt's lease
    (fenced), so a first attempt has none and skips the lookup (one probe per history
    partition spared); events are looked up always: a state change before the first claim
    (transition_run_with_event: queued -> waiting -> queued) writes one."""
    match = c.join(alias, "k", "run_id")
    lookup = (
        f"(SELECT max({alias}.seq) FROM {c.t(table)} AS {alias}\n"
        f"     WHERE {match} AND {alias}.run_created_at = k.created_at)"
    )
    return f"CASE WHEN k.attempt_count > 1 THEN {lookup} END" if table == "checkpoints" else lookup


def _result(c: Ctx) -> str:
    return f"""SELECT {c.cols("k", "run_id")}, k.created_at AS run_created_at, k.kind, k.input, k.version,
    a.attempt_no, a.fencing_token, a.lease_expires_at,
    {_latest(c, "checkpoints", "cp")} AS last_checkpoint_seq,
    {_latest(c, "events", "ev")} AS last_event_seq
FROM claimed AS k
JOIN attempt AS a ON {c.join("a", "k", "run_id")}"""
