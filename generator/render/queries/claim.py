"""claim_run, one statement per lock strategy (data-modifying CTEs).

Every variant: pick the next due queued run (priority, then wake_at), make it running
(version, fencing_token and attempt_count + 1), open its attempt with a hashed lease
token, and return what the worker needs. No row means nothing was claimed.
"""

from __future__ import annotations

from collections.abc import Callable

from agentddl.generator.profile import LockStrategy
from agentddl.generator.render.queries.base import LEASE_END, LEASE_HASH, Ctx, Query, where

ADVISORY_SCAN = 32  # candidates the advisory claim tries before giving up this round
CLAIMED = ("run_id", "created_at", "kind", "input", "version", "fencing_token", "attempt_count")


def claim_run(c: Ctx) -> Query:
    strategy = c.model.profile.lock_strategy
    body, how = _BUILDERS[strategy](c)
    scope = "across tenants" if c.tenant else "of any kind"
    if c.claim_is_tenant_scoped:
        scope = f"within one {c.tenant} (row-level security)"
    doc = (
        f"Claim the next due queued run {scope} and open its attempt ({strategy.value}).",
        *how,
        "Run expire_leases first (every worker, every poll): that is the only takeover.",
        f"index: {c.path('claim_run').index}; attempts_one_active_key keeps one live attempt",
        "returns: run key, run_created_at, kind, input, version, attempt_no, fencing_token,",
        "lease_expires_at, last_checkpoint_seq, last_event_seq; or no row",
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


def _due(c: Ctx, alias: str = "r") -> str:
    scoped = c.tenant_filter(alias) if c.claim_is_tenant_scoped else []
    return where(*scoped, f"{alias}.status = 'queued'", f"{alias}.wake_at <= now()", pad=4)


def _claim_update(c: Ctx, source: str, *checks: str) -> str:
    """The run becomes running; the counters the attempt takes are returned."""
    returned = c.cols("r", *CLAIMED)
    return f"""claimed AS (
    UPDATE {c.t("runs")} AS r
    SET status = 'running',
        version = r.version + 1,
        fencing_token = r.fencing_token + 1,
        attempt_count = r.attempt_count + 1,
        updated_at = now()
    FROM {source} AS k
    {where(c.join("r", "k", "run_id"), "r.status = 'queued'", *checks, pad=4)}
    RETURNING {returned}
)"""


def _skip_locked(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidate AS (
    SELECT {c.cols("r", "run_id")}
    FROM {c.t("runs")} AS r
    {_due(c)}
    ORDER BY r.priority DESC, r.wake_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
),
{_claim_update(c, "candidate")}{_attempt_insert(c)}"""
    how = (
        "FOR UPDATE SKIP LOCKED: concurrent workers skip rows another claim holds,",
        "so each gets a different run without waiting.",
    )
    return body, how


def _optimistic(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidate AS (
    SELECT {c.cols("r", "run_id")}, r.version
    FROM {c.t("runs")} AS r
    {_due(c)}
    ORDER BY r.priority DESC, r.wake_at
    LIMIT 1
),
{_claim_update(c, "candidate", "r.version = k.version")}{_attempt_insert(c)}"""
    how = (
        "Compare-and-set: the candidate is read without locks; the UPDATE re-checks",
        "version and status on the newest row (READ COMMITTED), so of two workers on",
        "one run exactly one gets a row. Losers retry; best at low contention.",
    )
    return body, how


def _advisory(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidates AS MATERIALIZED (
    SELECT {c.cols("r", "run_id")}, r.version, r.priority, r.wake_at
    FROM {c.t("runs")} AS r
    {_due(c)}
    ORDER BY r.priority DESC, r.wake_at
    LIMIT {ADVISORY_SCAN}
),
candidate AS (
    SELECT {c.cols("o", "run_id")}, o.version
    FROM (SELECT * FROM candidates ORDER BY priority DESC, wake_at OFFSET 0) AS o
    WHERE pg_try_advisory_xact_lock(hashtextextended(o.run_id::text, 0))
    LIMIT 1
),
{_claim_update(c, "candidate", "r.version = k.version")}{_attempt_insert(c)}"""
    how = (
        "Transaction-level advisory lock on hashtextextended(run_id::text, 0): at most",
        f"{ADVISORY_SCAN} due runs are read into a MATERIALIZED list first, and the lock is",
        "tried in order on that list only, stopping at the first success. OFFSET 0 keeps",
        "the planner from pushing the lock filter below the sort, where it would lock",
        "every candidate. The UPDATE's version check rejects a run claimed and",
        "committed since the list was read. The lock ends with the transaction.",
    )
    return body, how


def _lease(c: Ctx) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidate AS (
    SELECT {c.cols("r", "run_id")},
        r.fencing_token + 1 AS fencing_token,
        (SELECT coalesce(max(p.attempt_no), 0) + 1
         FROM {c.t("attempts")} AS p
         {where(c.join("p", "r", "run_id"))}) AS attempt_no
    FROM {c.t("runs")} AS r
    {
        where(
            *(c.tenant_filter("r") if c.claim_is_tenant_scoped else []),
            "r.status = 'queued'",
            "r.wake_at <= now()",
            f"NOT EXISTS (SELECT 1 FROM {c.t('attempts')} AS x "
            f"WHERE {c.join('x', 'r', 'run_id')} AND x.status = 'active')",
            pad=4,
        )
    }
    ORDER BY r.priority DESC, r.wake_at
    LIMIT 1
),
attempt AS (
    INSERT INTO {c.t("attempts")} AS a
        ({
        c.names(
            "run_id",
            "attempt_no",
            "fencing_token",
            "worker_id",
            "lease_token_hash",
            "lease_expires_at",
        )
    })
    SELECT {c.cols("k", "run_id")}, k.attempt_no, k.fencing_token, CAST(:worker_id AS text),
        {LEASE_HASH}, {LEASE_END}
    FROM candidate AS k
    ON CONFLICT DO NOTHING
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token", "lease_expires_at")}
),
claimed AS (
    UPDATE {c.t("runs")} AS r
    SET status = 'running',
        version = r.version + 1,
        fencing_token = a.fencing_token,
        attempt_count = a.attempt_no,
        updated_at = now()
    FROM attempt AS a
    {
        where(
            c.join("r", "a", "run_id"),
            "r.status = 'queued'",
            "r.fencing_token = a.fencing_token - 1",
            pad=4,
        )
    }
    RETURNING {c.cols("r", *CLAIMED)}
)"""
    how = (
        "The claim is the INSERT of the attempt: attempts_one_active_key and the",
        "primary key (attempt_no = last + 1) make a second live attempt impossible, and",
        "ON CONFLICT DO NOTHING turns a lost race or a stale snapshot into no row. Only",
        "an inserted attempt moves the run. If the run changed meanwhile (a transition),",
        "the attempt is left unclaimed: the next transition_run ends it, or it expires",
        "by time; runs with an active attempt are not candidates, and the next claim",
        "numbers after it.",
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
        ({
        c.names(
            "run_id",
            "attempt_no",
            "fencing_token",
            "worker_id",
            "lease_token_hash",
            "lease_expires_at",
        )
    })
    SELECT {c.cols("k", "run_id")}, k.attempt_count, k.fencing_token, CAST(:worker_id AS text),
        {LEASE_HASH}, {LEASE_END}
    FROM claimed AS k
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token", "lease_expires_at")}
)"""


def _latest(c: Ctx, table: str, alias: str) -> str:
    match = c.join(alias, "k", "run_id")
    return (
        f"(SELECT max({alias}.seq) FROM {c.t(table)} AS {alias}\n"
        f"     WHERE {match} AND {alias}.run_created_at = k.created_at)"
    )


def _result(c: Ctx) -> str:
    return f"""SELECT {c.cols("k", "run_id")}, k.created_at AS run_created_at, k.kind, k.input, k.version,
    a.attempt_no, a.fencing_token, a.lease_expires_at,
    {_latest(c, "checkpoints", "cp")} AS last_checkpoint_seq,
    {_latest(c, "events", "ev")} AS last_event_seq
FROM claimed AS k
JOIN attempt AS a ON {c.join("a", "k", "run_id")}"""
