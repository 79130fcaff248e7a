"""The attempt's life after the claim: heartbeat, end (complete/fail/interrupt), expiry.

Every one is fenced on the live row (run_queue): the caller's fencing token and lease
token's hash must both match a running row. Lock order everywhere, as in the claim: the
live row first, then the attempt, then the run, so these never deadlock with each other,
with the claim or with transition_run. Each ending writes its event, numbered by the
live row's counter, in the same statement.
"""

from __future__ import annotations

from agentddl.generator.profile import LockStrategy
from agentddl.generator.render.queries.base import (
    BACKOFF_CAP,
    LEASE_END,
    Ctx,
    Query,
    backoff_sql,
    returning,
    where,
)
from agentddl.generator.render.queries.live import (
    either,
    end_attempt,
    ended_event,
    fenced_live,
    fenced_params,
    gone,
    live_returning,
    requeued,
)


def attempt_queries(c: Ctx) -> tuple[Query, ...]:
    return (
        expire_leases(c),
        current_attempt(c),
        heartbeat(c),
        complete_attempt(c),
        complete_attempts(c),
        fail_attempt(c),
        interrupt_attempt(c),
    )


def expire_leases(c: Ctx) -> Query:
    due = c.join("q", "d", "run_id")
    sql = f"""WITH due AS (
    SELECT {c.cols("q", "run_id")}
    FROM {c.t("run_queue")} AS q
    {where(*c.shard_filter("q"), "q.visible_at < now()", "q.state = 'running'", pad=4)}
    ORDER BY q.priority DESC, q.visible_at
    LIMIT CAST(:batch_size AS integer)
    FOR UPDATE SKIP LOCKED
),
{requeued(c, "requeued", "now()", due, SPARE, source="due AS d", extra=", 'queued' AS run_status")},
spent AS (
    DELETE FROM {c.t("run_queue")} AS q
    USING due AS d
    {where(due, "q.attempt_no >= q.max_attempts", pad=4)}
    {live_returning(c, "q.event_seq + 1")}, 'failed' AS run_status
),
{either("requeued", "spent")},
expired AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    FROM live AS l
    {where(c.join("a", "l", "run_id"), "a.attempt_no = l.attempt_no", "a.status = 'active'", pad=4)}
    RETURNING {c.cols("a", "run_id", "attempt_no")}
),
moved AS (
    UPDATE {c.t("runs")} AS r
    SET status = l.run_status,
        finished_at = CASE WHEN l.run_status = 'failed' THEN {c.now} END,
        wake_at = now(),
        version = r.version + 1,
        updated_at = now()
    FROM live AS l{c.clock()}
    {where(c.join("r", "l", "run_id"), "r.status = 'running'", pad=4)}
    RETURNING {c.cols("r", "run_id", "status", "version")}
),
{ended_event(c, "moved", "'attempt.expired'")}{_orphaned(c)}
SELECT {c.cols("l", "run_id", "attempt_no")}, m.status AS run_status, m.version AS run_version
FROM live AS l
LEFT JOIN moved AS m ON {c.join("m", "l", "run_id")}{_orphans_listed(c)}
ORDER BY 1, 2{", 3" if c.tenant else ""}"""
    doc = c.clocked(
        "Housekeeping, optional: up to :batch_size running live rows whose lease ran out",
        "are queued again (visible at once), or, once their attempts are spent, leave the",
        "live set and their runs fail; their attempts end expired (reason lease_expired).",
        "Nothing waits for it: claim_run takes a lapsed run over itself, and readers see",
        "the effective status; run it now and then (e.g. with the retention jobs) so runs",
        "out of attempts are recorded failed.",
        *(_expire_scope(c) if c.tenant else []),
        f"index: {c.path('expire_leases').index}",
        "returns: one row per expired attempt, with the run's new status (null: the run",
        "had already moved on)",
    )
    return Query("expire_leases", "", doc, sql, params=tuple([*c.shard_param(), "batch_size integer"]))


SPARE = "q.attempt_no < q.max_attempts"  # attempts are left: a lapsed run is queued again


def _orphaned(c: Ctx) -> str:
    """lease: a claim whose attempt went in but whose live row moved meanwhile (a
    transition) left an active attempt no live row points at; once its lease ran out it
    is expired here (attempts_one_active_key holds every active attempt: a short list)."""
    if c.model.strategy != LockStrategy.lease:
        return ""
    pointed = (
        f"NOT EXISTS (SELECT FROM {c.t('run_queue')} AS q\n"
        f"        WHERE {c.join('q', 'a', 'run_id')} AND q.state = 'running' AND q.attempt_no = a.attempt_no)"
    )
    return f""",
orphaned AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'expired', ended_at = now(), interruption_reason = 'lease_expired'
    {where(*c.shard_filter("a"), "a.status = 'active'", "a.lease_expires_at < now()", pointed, pad=4)}
    RETURNING {c.cols("a", "run_id", "attempt_no")}
)"""


def _orphans_listed(c: Ctx) -> str:
    if c.model.strategy != LockStrategy.lease:
        return ""
    return f"\nUNION ALL\nSELECT {c.cols('o', 'run_id', 'attempt_no')}, NULL, NULL\nFROM orphaned AS o"


def _expire_scope(c: Ctx) -> list[str]:
    if c.distributed:
        return [f"One {c.tenant}'s live rows (distributed: one shard, a router query)."]
    return ["Runs across tenants (under row-level security: the session's tenant)."]


def current_attempt(c: Ctx) -> Query:
    sql = f"""SELECT a.attempt_no, a.worker_id, a.fencing_token, a.started_at,
    q.visible_at AS lease_expires_at, q.visible_at > now() AS lease_live
FROM {c.t("attempts")} AS a
LEFT JOIN {c.t("run_queue")} AS q
    ON {c.join("q", "a", "run_id")} AND q.state = 'running' AND q.attempt_no = a.attempt_no
{where(c.match("a", "run_id"), "a.status = 'active'")}"""
    doc = (
        "The run's active attempt (at most one) and its lease, read from the live row:",
        "who holds the run, since when, and whether the lease is still live. No row: no",
        "attempt is active.",
        f"index: {c.path('current_attempt').index}, then run_queue_pkey",
        "returns: attempt_no, worker_id, fencing_token, started_at, lease_expires_at, lease_live",
    )
    return Query("current_attempt", "^", doc, sql, params=tuple([*c.tenant_param(), "run_id uuid"]))


def heartbeat(c: Ctx) -> Query:
    sql = (
        f"UPDATE {c.t('run_queue')} AS q\n"
        f"SET visible_at = {LEASE_END}\n"
        f"{where(*fenced_live(c), 'q.visible_at > now()')}\n" + returning("q.visible_at AS lease_expires_at")
    )
    doc = (
        "Renew the caller's lease while it has not yet expired: the live row's visible_at",
        "moves to the new expiry (a lapsed lease is a row that became visible again).",
        "No row: the lease is lost (expired, taken over, or the run left 'running');",
        "stop working on the run. Run it in its own short transaction: now() is the",
        "transaction's start.",
        *_hot_heartbeats(c),
        f"index: {c.path('heartbeat').index}",
        "returns: the new lease_expires_at, or nothing",
    )
    return Query("heartbeat", "$", doc, sql, params=tuple([*fenced_params(c), "lease_seconds integer"]))


def _hot_heartbeats(c: Ctx) -> tuple[str, ...]:
    """With the hot projection in Redis this is the durable lease only (redis/hot_state.py)."""
    if not c.model.hot_state_in_redis:
        return ()
    return (
        "hot_state.store is redis: heartbeats and progress go to Redis; run this only",
        "every third of the lease (redis/hot_state.py's Holder does), the durable lease",
        "that lets a crashed worker's run be taken over by time alone.",
    )


def complete_attempt(c: Ctx) -> Query:
    sql = end_attempt(
        c,
        gone(c, *fenced_live(c)),
        "status = 'succeeded', ended_at = now()",
        "status = 'succeeded',\n        result = CAST(:result AS jsonb),\n        finished_at = now()",
        "'attempt.succeeded'",
    )
    doc = (
        "Finish the caller's attempt and the run (succeeded, with its result): the live",
        "row is deleted, the attempt and the run updated (HOT), attempt.succeeded logged.",
        "A stale worker (other fencing token, wrong lease token, run no longer running)",
        "gets no row and changes nothing. A lease that ran out but was not yet taken over",
        "still completes: the fencing token, not the clock, decides.",
        f"index: {c.path('complete_attempt').index}, then attempts_pkey and runs_pkey",
        "returns: run_status, run_version, wake_at, attempt_no; or no row",
    )
    return Query("complete_attempt", "<!", doc, sql, params=tuple([*fenced_params(c), "result jsonb"]))


def complete_attempts(c: Ctx) -> Query:
    """The batched completion: parallel arrays, one element per claimed run. Where the
    claim is one tenant's (row-level security, Citus), so is the batch: the tenant is one
    parameter, and a distributed batch stays on one shard."""
    scoped = c.claim_is_tenant_scoped
    per_run = () if scoped else c.keyed()
    keys = [*(f"CAST(:{t}s AS {c.tenant_type}[])" for t in per_run), "CAST(:run_ids AS uuid[])"]
    names = ", ".join([*per_run, "run_id", "fencing_token", "lease_token", "result"])
    matched = [*c.tenant_filter("q"), "q.run_id = b.run_id"] if scoped else [c.join("q", "b", "run_id")]
    batch = f"""batch AS (
    SELECT *
    FROM unnest({", ".join(keys)},
        CAST(:fencing_tokens AS bigint[]), CAST(:lease_tokens AS text[]), CAST(:results AS jsonb[]))
        AS b ({names})
),
live AS (
    DELETE FROM {c.t("run_queue")} AS q
    USING batch AS b
    {
        where(
            *matched,
            "q.state = 'running'",
            "q.fencing_token = b.fencing_token",
            "q.lease_token_hash = sha256(convert_to(b.lease_token, 'UTF8'))",
            pad=4,
        )
    }
    {live_returning(c, "q.event_seq + 1")}, b.result
)"""
    sql = end_attempt(
        c,
        batch,
        "status = 'succeeded', ended_at = now()",
        "status = 'succeeded',\n        result = l.result,\n        finished_at = now()",
        "'attempt.succeeded'",
        batch=True,
    )
    doc = (
        "complete_attempt for several runs in one statement (a worker that claimed a",
        "batch with claim_runs): element i of each array is one run's key, fencing token,",
        "lease token and result. Each run is fenced on its own; a stale one is left out.",
        f"index: {c.path('complete_attempts').index}, then attempts_pkey and runs_pkey",
        "returns: one row per completed run: its key, run_status, run_version, wake_at, attempt_no",
    )
    params = [
        *(c.tenant_param() if scoped else (f"{t}s {c.tenant_type}[]" for t in c.keyed())),
        "run_ids uuid[]",
        "fencing_tokens bigint[]",
        "lease_tokens text[]",
        "results jsonb[]",
    ]
    return Query("complete_attempts", "", doc, sql, params=tuple(params))


def fail_attempt(c: Ctx) -> Query:
    retry = "CAST(:retryable AS boolean) AND q.attempt_no < q.max_attempts"
    delay = backoff_sql("CAST(:backoff_seconds AS integer)", "q.attempt_no") + " * interval '1 second'"
    spent = ", 'failed' AS run_status, NULL::timestamptz AS wake_at"
    retried = ", 'queued' AS run_status, q.visible_at AS wake_at"
    clock = c.clock("")  # Citus: the retry's visible_at is read from it
    retry_live = requeued(c, "retried", c.later(delay), *fenced_live(c), retry, source=clock, extra=retried)
    live = f"""{retry_live},
{gone(c, *fenced_live(c), f"NOT ({retry})", name="spent", extra=spent)},
{either("retried", "spent")}"""
    run_set = (
        "status = l.run_status,\n"
        "        wake_at = coalesce(l.wake_at, r.wake_at),\n"
        f"        finished_at = CASE WHEN l.run_status = 'failed' THEN {c.now} END"
    )
    if c.model.parts.details:  # the run keeps its last failure's error
        run_set += ",\n        error = CAST(:error AS text)"
    sql = end_attempt(
        c,
        live,
        "status = 'failed', ended_at = now(), error = CAST(:error AS text)",
        run_set,
        "'attempt.failed'",
        clocked=True,
    )
    doc = c.clocked(
        "Fail the caller's attempt. The run is queued again after an exponential",
        f"backoff (backoff_seconds x 2^(attempt - 1), doubling at most {BACKOFF_CAP} times: its",
        "live row becomes visible then) when retryable and attempts remain; otherwise it",
        "leaves the live set and fails.",
        f"index: {c.path('fail_attempt').index}, then attempts_pkey and runs_pkey",
        "returns: run_status (queued or failed), run_version, wake_at, attempt_no; or no row",
    )
    return Query(
        "fail_attempt",
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *fenced_params(c),
                "error text (bounded, no stack dumps)",
                "retryable boolean",
                "backoff_seconds integer",
            ]
        ),
    )


def interrupt_attempt(c: Ctx) -> Query:
    live = requeued(c, "live", "now()", *fenced_live(c))
    sql = end_attempt(
        c,
        live,
        "status = 'interrupted', ended_at = now(),\n        interruption_reason = CAST(:reason AS text)",
        "status = 'queued',\n        wake_at = now()",
        "'attempt.interrupted'",
    )
    doc = (
        "Give the run back (shutdown, preemption): the attempt ends as interrupted with",
        "the reason, and the run is queued again at once (its live row visible now).",
        "Interruptions are not the run's fault: they do not fail it, though the attempt",
        "count keeps counting.",
        f"index: {c.path('interrupt_attempt').index}, then attempts_pkey and runs_pkey",
        "returns: run_status, run_version, wake_at, attempt_no; or no row",
    )
    return Query(
        "interrupt_attempt",
        "<!",
        doc,
        sql,
        params=tuple([*fenced_params(c), "reason text (e.g. worker_shutdown)"]),
    )
