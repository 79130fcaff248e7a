"""The pieces every fenced write of a live row (run_queue) shares: the fence, the live row
requeued or gone, and the one statement that ends an attempt (live row, then attempt, then
run, then event: the lock order of the claim and of transition_run)."""

from __future__ import annotations

from agentddl.generator.render.queries.base import (
    LEASE_HASH,
    Ctx,
    returning,
    where,
)


def fenced_live(c: Ctx, alias: str = "q") -> tuple[str, ...]:
    """The caller's running live row: fencing token and lease token hash must both match."""
    return (
        c.match(alias, "run_id"),
        f"{alias}.state = 'running'",
        f"{alias}.fencing_token = CAST(:fencing_token AS bigint)",
        f"{alias}.lease_token_hash = {LEASE_HASH}",
    )


def fenced_params(c: Ctx) -> list[str]:
    return [*c.tenant_param(), "run_id uuid", "fencing_token bigint", "lease_token text"]


def live_returning(c: Ctx, seq: str) -> str:
    return returning(
        c.cols("q", "run_id"), "q.run_created_at", "q.attempt_no", "q.fencing_token", f"{seq} AS event_seq"
    )


def ended_event(c: Ctx, moved: str, kind: str) -> str:
    """logged: the event of each moved run at the live row's counter (live AS l)."""
    return f"""logged AS (
    INSERT INTO {c.t("events")} AS ev
        ({c.names("run_id", "run_created_at", "seq", "kind", "actor", "payload")})
    SELECT {c.cols("l", "run_id")}, l.run_created_at, l.event_seq, {kind}, 'system',
        jsonb_build_object('attempt_no', l.attempt_no, 'fencing_token', l.fencing_token)
    FROM live AS l
    JOIN {moved} AS m ON {c.join("m", "l", "run_id")}
)"""


def end_attempt(
    c: Ctx,
    live: str,
    attempt_set: str,
    run_set: str,
    kind: str,
    *,
    batch: bool = False,
    clocked: bool = False,
) -> str:
    """One statement: the fenced live row (deleted or requeued: `live` is the CTEs that
    do it, ending in `live`), then its attempt, then its run (version + 1), then the
    event. clocked: run_set reads c.now (the clock is joined to the run's update)."""
    return f"""WITH {live},
ended AS (
    UPDATE {c.t("attempts")} AS a
    SET {attempt_set}
    FROM live AS l
    {where(c.join("a", "l", "run_id"), "a.attempt_no = l.attempt_no", "a.status = 'active'", pad=4)}
    RETURNING {c.cols("a", "run_id", "attempt_no")}
),
moved AS (
    UPDATE {c.t("runs")} AS r
    SET {run_set},
        version = r.version + 1,
        updated_at = now()
    FROM live AS l{c.clock() if clocked else ""}
    {where(c.join("r", "l", "run_id"), "r.fencing_token = l.fencing_token", "r.status = 'running'", pad=4)}
    RETURNING {c.cols("r", "run_id", "status", "version", "wake_at")}
),
{ended_event(c, "moved", kind)}
SELECT {c.cols("m", "run_id") + ", " if batch else ""}m.status AS run_status, m.version AS run_version,
    m.wake_at, l.attempt_no
FROM moved AS m
JOIN live AS l ON {c.join("l", "m", "run_id")}"""


def requeued(c: Ctx, name: str, visible_at: str, *conditions: str, source: str = "", extra: str = "") -> str:
    """`name` AS: the live row queued again, visible at `visible_at`, its lease dropped,
    its event counter taken for the ending's event. `source`: a FROM item the conditions
    read (expire_leases' due rows); without one they fence the caller's row."""
    source = f"\n    FROM {source}" if source else ""
    return f"""{name} AS (
    UPDATE {c.t("run_queue")} AS q
    SET state = 'queued', visible_at = {visible_at},
        lease_token_hash = NULL, worker_id = NULL, event_seq = q.event_seq + 1{source}
    {where(*conditions, pad=4)}
    {live_returning(c, "q.event_seq")}{extra}
)"""


def either(first: str, second: str) -> str:
    """live AS: the rows of two exclusive live-row CTEs (requeued, or gone)."""
    return f"live AS (\n    SELECT * FROM {first}\n    UNION ALL\n    SELECT * FROM {second}\n)"


def gone(c: Ctx, *fence: str, name: str = "live", extra: str = "") -> str:
    """The fenced live row deleted: the run leaves the live set (`extra`: more columns)."""
    return f"""{name} AS (
    DELETE FROM {c.t("run_queue")} AS q
    {where(*fence, pad=4)}
    {live_returning(c, "q.event_seq + 1")}{extra}
)"""
