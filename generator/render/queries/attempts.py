"""The attempt's life after the claim: heartbeat, end (complete/fail/interrupt), expiry.

Lock order everywhere: the attempt row first, then the run row (claim_run touches only
queued runs, which have no active attempt), so these never deadlock with each other or
with transition_run.
"""

from __future__ import annotations

from agentddl.generator.render.queries.base import (
    BACKOFF_CAP,
    LEASE_END,
    LEASE_HASH,
    Ctx,
    Query,
    backoff_sql,
    returning,
    where,
)


def attempt_queries(c: Ctx) -> tuple[Query, ...]:
    return (expire_leases(c), heartbeat(c), complete_attempt(c), fail_attempt(c), interrupt_attempt(c))


def _fenced(c: Ctx) -> tuple[str, ...]:
    """The caller's active attempt: lease token hash and fencing token must both match."""
    return (
        c.match("a", "run_id"),
        "a.status = 'active'",
        "a.fencing_token = CAST(:fencing_token AS bigint)",
        f"a.lease_token_hash = {LEASE_HASH}",
    )


def _fenced_params(c: Ctx) -> list[str]:
    return [*c.tenant_param(), "run_id uuid", "fencing_token bigint", "lease_token text"]


_ACTIVE = "a.status = 'active'"
_FENCED_RUNNING = ("r.fencing_token = e.fencing_token", "r.status = 'running'")


def expire_leases(c: Ctx) -> Query:
    lapsed = ("a.status = 'active'", "a.ended_at IS NULL", "a.lease_expires_at < now()")  # the expiry index's
    sql = f"""WITH due AS (
    SELECT {c.cols("a", "run_id")}, a.attempt_no
    FROM {c.t("attempts")} AS a
    {where(*c.shard_filter("a"), *lapsed, pad=4)}
    ORDER BY a.lease_expires_at
    LIMIT CAST(:batch_size AS integer)
    FOR UPDATE SKIP LOCKED
),
expired AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    FROM due AS d
    {where(*c.shard_filter("a"), c.join("a", "d", "run_id"), "a.attempt_no = d.attempt_no", _ACTIVE, pad=4)}
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token")}
),
moved AS (
    UPDATE {c.t("runs")} AS r
    SET status = CASE WHEN r.attempt_count >= r.max_attempts THEN 'failed' ELSE 'queued' END,
        finished_at = CASE WHEN r.attempt_count >= r.max_attempts THEN now() END,
        wake_at = now(),
        version = r.version + 1,
        updated_at = now()
    FROM expired AS e
    {where(*c.shard_filter("r"), c.join("r", "e", "run_id"), *_FENCED_RUNNING, pad=4)}
    RETURNING {c.cols("r", "run_id", "status", "version")}
)
SELECT {c.cols("e", "run_id", "attempt_no")}, m.status AS run_status, m.version AS run_version
FROM expired AS e
LEFT JOIN moved AS m ON {c.join("m", "e", "run_id")}
ORDER BY {c.cols("e", "run_id", "attempt_no")}"""
    doc = (
        "Housekeeping, optional: close up to :batch_size active attempts whose lease ran",
        "out (expired, reason lease_expired) and requeue their runs, or fail them once",
        "attempt_count >= max_attempts, only if the run's fencing token is still the",
        "attempt's. Nothing waits for it: claim_run takes a lapsed run over itself, and",
        "readers see the effective status; run it now and then (e.g. with the retention",
        "jobs) so stored statuses catch up and runs out of attempts are recorded failed.",
        *(_expire_scope(c) if c.tenant else []),
        f"index: {c.path('expire_leases').index}",
        "returns: one row per expired attempt, with the run's new status (null: the run",
        "had already moved on)",
    )
    return Query("expire_leases", "", doc, sql, params=tuple([*c.shard_param(), "batch_size integer"]))


def _expire_scope(c: Ctx) -> list[str]:
    if c.distributed:
        return [f"One {c.tenant}'s attempts (distributed: one shard, a router query)."]
    return ["Runs across tenants (under row-level security: the session's tenant)."]


def heartbeat(c: Ctx) -> Query:
    sql = (
        f"UPDATE {c.t('attempts')} AS a\n"
        f"SET heartbeat_at = now(), lease_expires_at = {LEASE_END}\n"
        f"{where(*_fenced(c), 'a.lease_expires_at > now()')}\n" + returning("a.lease_expires_at")
    )
    doc = (
        "Renew the lease of the caller's active attempt while it has not yet expired.",
        "No row: the lease is lost (expired, taken over, or the run left 'running');",
        "stop working on the run. Run it in its own short transaction: now() is the",
        "transaction's start.",
        *_hot_heartbeats(c),
        f"index: {c.path('heartbeat').index}",
        "returns: the new lease_expires_at, or nothing",
    )
    return Query("heartbeat", "$", doc, sql, params=tuple([*_fenced_params(c), "lease_seconds integer"]))


def _hot_heartbeats(c: Ctx) -> tuple[str, ...]:
    """With the hot projection in Redis this is the durable lease only (redis/hot_state.py)."""
    if c.model.profile.hot_state.store != "redis":
        return ()
    return (
        "hot_state.store is redis: heartbeats and progress go to Redis; run this only",
        "every third of the lease (redis/hot_state.py's Holder does), the durable lease",
        "that lets a crashed worker's run be taken over by time alone.",
    )


def _end_attempt(c: Ctx, attempt_set: str, run_set: str, run_checks: tuple[str, ...] = ()) -> str:
    """One statement: end the fenced attempt, then move its run (fencing CAS + version)."""
    return f"""WITH ended AS (
    UPDATE {c.t("attempts")} AS a
    SET {attempt_set}
    {where(*_fenced(c), pad=4)}
    RETURNING {c.cols("a", "run_id", "attempt_no", "fencing_token")}
),
moved AS (
    UPDATE {c.t("runs")} AS r
    SET {run_set},
        version = r.version + 1,
        updated_at = now()
    FROM ended AS e
    {
        where(
            c.join("r", "e", "run_id"),
            "r.fencing_token = e.fencing_token",
            "r.status = 'running'",
            *run_checks,
            pad=4,
        )
    }
    RETURNING {c.cols("r", "run_id", "status", "version", "wake_at")}
)
SELECT m.status AS run_status, m.version AS run_version, m.wake_at, e.attempt_no
FROM moved AS m
JOIN ended AS e ON {c.join("e", "m", "run_id")}"""


def complete_attempt(c: Ctx) -> Query:
    sql = _end_attempt(
        c,
        "status = 'succeeded', ended_at = now()",
        "status = 'succeeded',\n        result = CAST(:result AS jsonb),\n        finished_at = now()",
    )
    doc = (
        "Finish the caller's attempt and the run (succeeded, with its result).",
        "A stale worker (other fencing token, wrong lease token, attempt no longer",
        "active) gets no row and changes nothing. A lease that ran out but was not yet",
        "taken over still completes: the fencing token, not the clock, decides.",
        f"index: {c.path('complete_attempt').index}, then runs_pkey",
        "returns: run_status, run_version, wake_at, attempt_no; or no row",
    )
    return Query("complete_attempt", "<!", doc, sql, params=tuple([*_fenced_params(c), "result jsonb"]))


def fail_attempt(c: Ctx) -> Query:
    retry = "CAST(:retryable AS boolean) AND r.attempt_count < r.max_attempts"
    delay = backoff_sql("CAST(:backoff_seconds AS integer)", "r.attempt_count") + " * interval '1 second'"
    run_set = (
        f"status = CASE WHEN {retry} THEN 'queued' ELSE 'failed' END,\n"
        f"        wake_at = CASE WHEN {retry} THEN now() + {delay} ELSE r.wake_at END,\n"
        f"        finished_at = CASE WHEN {retry} THEN NULL ELSE now() END"
    )
    if c.model.profile.model.details:  # the run keeps its last failure's error
        run_set += ",\n        error = CAST(:error AS text)"
    sql = _end_attempt(c, "status = 'failed', ended_at = now(), error = CAST(:error AS text)", run_set)
    doc = (
        "Fail the caller's attempt. The run is queued again after an exponential",
        f"backoff (backoff_seconds x 2^(attempt_count - 1), doubling at most {BACKOFF_CAP} times)",
        "when retryable and attempts remain; otherwise it fails.",
        f"index: {c.path('fail_attempt').index}, then runs_pkey",
        "returns: run_status (queued or failed), run_version, wake_at, attempt_no; or no row",
    )
    return Query(
        "fail_attempt",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *_fenced_params(c),
                "error text (bounded, no stack dumps)",
                "retryable boolean",
                "backoff_seconds integer",
            ]
        ),
    )


def interrupt_attempt(c: Ctx) -> Query:
    sql = _end_attempt(
        c,
        "status = 'interrupted', ended_at = now(),\n        interruption_reason = CAST(:reason AS text)",
        "status = 'queued',\n        wake_at = now()",
    )
    doc = (
        "Give the run back (shutdown, preemption): the attempt ends as interrupted with",
        "the reason, and the run is queued again at once. Interruptions are not the",
        "run's fault: they do not fail it, though attempt_count keeps counting.",
        f"index: {c.path('interrupt_attempt').index}, then runs_pkey",
        "returns: run_status, run_version, wake_at, attempt_no; or no row",
    )
    return Query(
        "interrupt_attempt",
        "<!",
        doc,
        sql,
        params=tuple([*_fenced_params(c), "reason text (e.g. worker_shutdown)"]),
    )
