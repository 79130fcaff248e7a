"""claim_run and claim_runs: one statement per lock strategy on the live set (run_queue).

The next run is the first *visible* live row by priority: a queued run whose due time
came, or a running one whose lease ran out (the worker died or stalled): a lapsed lease
is just a row that became visible again. The claim updates that row in place (state
running, fencing token + 1, attempt + 1, the lease's hash and expiry as visible_at, the
event counter), opens the attempt, ends a lapsed attempt as 'expired', mirrors the run's
status on `runs` (a HOT update: no index of runs covers a column the claim changes) and
writes the claim's events (attempt.expired, attempt.started) at the counter's numbers:
one statement, every state change with its event.

Lock order (every query): the live row first, then attempts, then runs.
"""

from __future__ import annotations

from collections.abc import Callable

from agentddl.generator.profile import LockStrategy
from agentddl.generator.render.queries.base import LEASE_END, LEASE_HASH, Ctx, Query, where

ADVISORY_SCAN = 32  # candidates the advisory claim tries before giving up this round
CLAIM_BATCH = "CAST(:batch_size AS integer)"
ATTEMPT_COLUMNS = (
    "run_id",
    "attempt_no",
    "fencing_token",
    "worker_id",
    "lease_token_hash",
    "lease_expires_at",
)
LAPSED_ATTEMPT = "a.attempt_no = k.attempt_no - 1"  # the claim already counted the new one
ACTIVE = "a.status = 'active'"
VISIBLE = "q.visible_at <= now()"


def claim_run(c: Ctx) -> Query:
    return _claim(c, "claim_run", "1")


def claim_runs(c: Ctx) -> Query:
    return _claim(c, "claim_runs", CLAIM_BATCH)


def _claim(c: Ctx, name: str, limit: str) -> Query:
    strategy = c.model.strategy
    body, how = _BUILDERS[strategy](c, limit)
    scope = "across tenants" if c.tenant else "of any kind"
    if c.claim_is_tenant_scoped:
        why = "distributed: one shard, a router query" if c.distributed else "row-level security"
        scope = f"within one {c.tenant} ({why})"
    what = "the next visible run" if limit == "1" else "up to :batch_size visible runs"
    doc = (
        f"Claim {what} {scope} and open its attempt ({strategy.value}): the first",
        "visible live row by priority, a due queued run or a running one whose lease",
        "ran out (taken over here: its attempt ends 'expired'). Runs whose attempts are",
        "spent stay for expire_leases (their effective status is already 'failed').",
        *how,
        f"index: {c.path(name).index}; attempts_one_active_key keeps one live attempt",
        "returns: run key, run_created_at, kind, input, version, attempt_no, fencing_token,",
        "lease_expires_at, last_checkpoint_seq (null: none yet), last_event_seq (the",
        "claim's own attempt.started); or no row",
    )
    params = [
        *(c.tenant_param() if c.claim_is_tenant_scoped else []),
        "worker_id text",
        "lease_token text (random, kept by the worker)",
        "lease_seconds integer",
    ]
    if limit != "1":
        params.append("batch_size integer")
    return Query(name, "<!" if limit == "1" else "", doc, f"{body}\n{_result(c)}", params=tuple(params))


def _scoped(c: Ctx, alias: str) -> list[str]:
    return c.tenant_filter(alias) if c.claim_is_tenant_scoped else []


def _visible(c: Ctx, *, limit: str, lock: str = "", extra: str = "") -> str:
    """Visible live rows in claim order: due, or lapsed with attempts left."""
    return f"""SELECT {c.cols("q", "run_id")}, q.state, q.fencing_token{extra}
    FROM {c.t("run_queue")} AS q
    {
        where(
            *_scoped(c, "q"),
            "q.visible_at <= now()",
            "(q.state = 'queued' OR q.state = 'running' AND q.attempt_no < q.max_attempts)",
            pad=4,
        )
    }
    ORDER BY q.priority DESC, q.visible_at
    LIMIT {limit}{lock}"""


def _taken(c: Ctx, *checks: str) -> str:
    """The live row becomes (or stays) running under a new fencing token and lease; a
    takeover's counter leaves room for the attempt.expired event before attempt.started."""
    return f"""claimed AS (
    UPDATE {c.t("run_queue")} AS q
    SET state = 'running',
        fencing_token = q.fencing_token + 1,
        attempt_no = q.attempt_no + 1,
        worker_id = CAST(:worker_id AS text),
        lease_token_hash = {LEASE_HASH},
        visible_at = {LEASE_END},
        event_seq = q.event_seq + CASE WHEN k.state = 'running' THEN 2 ELSE 1 END
    FROM candidate AS k
    {where(c.join("q", "k", "run_id"), "q.fencing_token = k.fencing_token", *checks, pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at, q.attempt_no, q.fencing_token,
        q.visible_at AS lease_expires_at, q.event_seq, q.checkpoint_seq, k.state AS was
)"""


def _opened(c: Ctx) -> str:
    """A takeover ends the lapsed attempt first (the EXISTS orders it before the insert,
    so attempts_one_active_key never sees two); then the new attempt opens."""
    return f"""ended AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    FROM claimed AS k
    {where(c.join("a", "k", "run_id"), "k.was = 'running'", LAPSED_ATTEMPT, "a.status = 'active'", pad=4)}
    RETURNING {c.cols("a", "run_id")}
),
attempt AS (
    INSERT INTO {c.t("attempts")} AS a
        ({c.names(*ATTEMPT_COLUMNS)})
    SELECT {c.cols("k", "run_id")}, k.attempt_no, k.fencing_token, CAST(:worker_id AS text),
        {LEASE_HASH}, k.lease_expires_at
    FROM claimed AS k
    WHERE k.was <> 'running' OR EXISTS (SELECT FROM ended AS e WHERE {c.join("e", "k", "run_id")})
    RETURNING {c.cols("a", "run_id", "attempt_no")}
)"""


def _mirrored(c: Ctx) -> str:
    """The durable run says running under the new token: a HOT update (status, version,
    token and counters are in no index of runs)."""
    return f"""run AS (
    UPDATE {c.t("runs")} AS r
    SET status = 'running',
        version = r.version + 1,
        fencing_token = k.fencing_token,
        attempt_count = k.attempt_no,{_first_claim(c)}
        updated_at = now()
    FROM claimed AS k
    JOIN attempt AS a ON {c.join("a", "k", "run_id")}
    {where(c.join("r", "k", "run_id"), pad=4)}
    RETURNING {c.cols("r", "run_id")}, r.kind, r.input, r.version
),
logged AS (
    INSERT INTO {c.t("events")} AS ev
        ({c.names("run_id", "run_created_at", "seq", "kind", "actor", "payload")})
    SELECT {c.cols("k", "run_id")}, k.run_created_at, k.event_seq - s.back, s.kind, 'system',
        jsonb_build_object('attempt_no', k.attempt_no - s.back, 'fencing_token', k.fencing_token - s.back)
    FROM claimed AS k
    JOIN run AS r ON {c.join("r", "k", "run_id")}
    CROSS JOIN (VALUES (0, 'attempt.started'), (1, 'attempt.expired')) AS s (back, kind)
    WHERE s.back = 0 OR k.was = 'running'
)"""


def _first_claim(c: Ctx) -> str:
    """model.details: the run's started_at is its first claim's time. LEAST skips a NULL, so
    this is coalesce(r.started_at, now()) in a form Citus runs (no STABLE function inside
    COALESCE or CASE of an UPDATE: verify --citus, ADS105)."""
    return "\n        started_at = least(r.started_at, now())," if c.model.parts.details else ""


def _update_based(c: Ctx, *checks: str) -> str:
    return f"{_taken(c, *checks)},\n{_opened(c)},\n{_mirrored(c)}"


def _skip_locked(c: Ctx, limit: str) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidate AS (
    {_visible(c, limit=limit, lock=f"{chr(10)}    FOR UPDATE SKIP LOCKED")}
),
{_update_based(c)}"""
    how = (
        "FOR UPDATE SKIP LOCKED: concurrent workers skip live rows another claim (or a",
        "step writing under the lapsed lease) holds, so each gets a different run without",
        "waiting.",
    )
    return body, how


def _optimistic(c: Ctx, limit: str) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidate AS (
    {_visible(c, limit=limit)}
),
{_update_based(c, VISIBLE)}"""
    how = (
        "Compare-and-set: the candidate is read without locks; the UPDATE re-checks the",
        "fencing token (every claim bumps it) and visibility on the newest row (READ",
        "COMMITTED), so of two workers on one run exactly one gets a row. Losers retry;",
        "best at low contention.",
    )
    return body, how


def _advisory(c: Ctx, limit: str) -> tuple[str, tuple[str, ...]]:
    body = f"""WITH candidates AS MATERIALIZED (
    {_visible(c, limit=str(ADVISORY_SCAN), extra=", q.priority, q.visible_at")}
),
candidate AS (
    SELECT {c.cols("o", "run_id")}, o.state, o.fencing_token
    FROM (SELECT * FROM candidates ORDER BY priority DESC, visible_at OFFSET 0) AS o
    WHERE pg_try_advisory_xact_lock(hashtextextended(o.run_id::text, 0))
    LIMIT {limit}
),
{_update_based(c, VISIBLE)}"""
    how = (
        "Transaction-level advisory lock on hashtextextended(run_id::text, 0): at most",
        f"{ADVISORY_SCAN} visible rows are read into a MATERIALIZED list first, and the lock is",
        "tried in order on that list only, stopping at the first success. OFFSET 0 keeps",
        "the planner from pushing the lock filter below the sort, where it would lock",
        "every candidate. The UPDATE's fencing-token check rejects a run claimed and",
        "committed since the list was read. The lock ends with the transaction.",
    )
    return body, how


def _lease(c: Ctx, limit: str) -> tuple[str, tuple[str, ...]]:
    # numbered past every attempt of the run: one a lost claim left behind included
    last = (
        f", (SELECT coalesce(max(p.attempt_no), 0) FROM {c.t('attempts')} AS p\n"
        f"         WHERE {c.join('p', 'q', 'run_id')}) AS last_attempt"
    )
    body = f"""WITH candidate AS (
    {_visible(c, limit=limit, extra=", q.attempt_no" + last)}
),
lapsed AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    FROM candidate AS k
    {where(c.join("a", "k", "run_id"), "k.state = 'running'", "a.attempt_no = k.attempt_no", ACTIVE, pad=4)}
    RETURNING {c.cols("a", "run_id")}
),
attempt AS (
    INSERT INTO {c.t("attempts")} AS a
        ({c.names(*ATTEMPT_COLUMNS)})
    SELECT {c.cols("k", "run_id")}, k.last_attempt + 1, k.fencing_token + 1, CAST(:worker_id AS text),
        {LEASE_HASH}, {LEASE_END}
    FROM candidate AS k
    WHERE k.state <> 'running' OR EXISTS (SELECT FROM lapsed AS e WHERE {c.join("e", "k", "run_id")})
    ON CONFLICT DO NOTHING
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token", "lease_expires_at")}
),
claimed AS (
    UPDATE {c.t("run_queue")} AS q
    SET state = 'running',
        fencing_token = a.fencing_token,
        attempt_no = a.attempt_no,
        worker_id = CAST(:worker_id AS text),
        lease_token_hash = {LEASE_HASH},
        visible_at = a.lease_expires_at,
        event_seq = q.event_seq + CASE WHEN k.state = 'running' THEN 2 ELSE 1 END
    FROM attempt AS a
    JOIN candidate AS k ON {c.join("k", "a", "run_id")}
    {where(c.join("q", "a", "run_id"), "q.fencing_token = a.fencing_token - 1", VISIBLE, pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at, q.attempt_no, q.fencing_token,
        q.visible_at AS lease_expires_at, q.event_seq, q.checkpoint_seq, k.state AS was
),
{_mirrored(c)}"""
    how = (
        "The claim is the INSERT of the attempt: attempts_one_active_key and the primary",
        "key (attempt_no = the live row's + 1) make a second live attempt impossible, and",
        "ON CONFLICT DO NOTHING turns a lost race or a stale snapshot into no row. A",
        "lapsed run's attempt is expired first in this statement. Only an inserted",
        "attempt moves the live row, and only if its fencing token is still the one read.",
        "An attempt left unclaimed (the row moved meanwhile) is ended by the next",
        "transition or taken over once its lease runs out.",
    )
    return body, how


_BUILDERS: dict[LockStrategy, Callable[[Ctx, str], tuple[str, tuple[str, ...]]]] = {
    LockStrategy.skip_locked: _skip_locked,
    LockStrategy.optimistic: _optimistic,
    LockStrategy.advisory: _advisory,
    LockStrategy.lease: _lease,
}


def _result(c: Ctx) -> str:
    return f"""SELECT {c.cols("k", "run_id")}, k.run_created_at, r.kind, r.input, r.version,
    k.attempt_no, k.fencing_token, k.lease_expires_at,
    nullif(k.checkpoint_seq, 0) AS last_checkpoint_seq, k.event_seq AS last_event_seq
FROM claimed AS k
JOIN run AS r ON {c.join("r", "k", "run_id")}"""
