"""Run lifecycle queries outside the claim: start, read, children, status transitions."""

from __future__ import annotations

from agentddl.generator.model.live import NEVER
from agentddl.generator.model.names import quote
from agentddl.generator.model.scope import TERMINAL_RUN_STATUSES, TRANSITIONS, sql_list
from agentddl.generator.model.states import effective_status, live_row_join
from agentddl.generator.render.queries.base import Ctx, Query, returning, where

# TRANSITIONS are the ones transition_run may make. Everything else is made by a fenced
# query: queued -> running only by claim_run; running -> succeeded/failed/queued only by
# the attempt queries or expire_leases. Terminal statuses never change (the database's
# runs_transition_guard trigger refuses anything outside both lists).
RUN_SUMMARY = (
    "run_id",
    "created_at",
    "run_key",
    "parent_run_id",
    "kind",
    "status",
    "version",
    "priority",
    "wake_at",
    "attempt_count",
    "updated_at",
    "finished_at",
)


STARTED = (
    "run_id",
    "created_at",
    "status",
    "version",
    "kind",
    "input",
    "priority",
    "wake_at",
    "max_attempts",
)


def run_queries(c: Ctx) -> tuple[Query, ...]:
    return (start_run(c), get_run(c), child_runs(c), transition_run(c))


def _conflict_target(c: Ctx) -> str:
    """The ON CONFLICT target spelled exactly as runs_run_key_key, so inference finds it
    (columns on 15+ with NULLS NOT DISTINCT; a COALESCE expression before 15)."""
    index = next(i for i in c.model.table("runs").indexes if i.name == "runs_run_key_key")
    return f"({', '.join(index.columns)}) WHERE {index.where}"


def start_run(c: Ctx, name: str = "start_run", extra: tuple[str, ...] = ()) -> Query:
    """start_run; `extra` columns (e.g. user_id, session_id) are set from same-named
    parameters, as start_session_run does."""
    columns = c.names("run_key", "parent_run_id", "kind", "input", "priority", "trace_id", *extra)
    values = ", ".join(
        [
            *(f":{t}" for t in c.keyed()),
            ":run_key",
            ":parent_run_id",
            ":kind",
            "CAST(:input AS jsonb)",
            ":priority",
            ":trace_id",
            *(f":{e}" for e in extra),
        ]
    )
    live = c.names("run_id", "run_created_at", "priority", "visible_at", "max_attempts")
    sql = f"""WITH started AS (
    INSERT INTO {c.t("runs")} AS r ({columns})
    VALUES ({values})
    ON CONFLICT {_conflict_target(c)}
    DO UPDATE SET run_key = EXCLUDED.run_key
    {returning(c.cols("r", *STARTED), "(r.xmax = 0) AS inserted")}
),
queued AS (
    INSERT INTO {c.t("run_queue")} ({live})
    SELECT {c.cols("s", "run_id", "created_at", "priority", "wake_at", "max_attempts")}
    FROM started AS s
    WHERE s.inserted
)
SELECT {c.cols("s", "run_id")}, s.created_at, s.status, s.version, s.kind, s.input, s.inserted
FROM started AS s"""
    doc = (
        f"Start a queued run. With a run_key, a repeat ({'same tenant, ' if c.tenant else 'same '}"
        "parent and key) returns",
        "the first run with inserted = false; compare kind/input if that matters to you.",
        "The no-op DO UPDATE is what returns the existing row even when it was committed",
        "after this statement's snapshot (DO NOTHING would return no row then). A new run",
        "enters the live set (run_queue) in the same statement, visible at once.",
        f"index: {c.path(name).index} (conflict target spelled as the index)",
        "returns: the run's key, created_at (keep it: history reads need it), status, version, inserted",
    )
    return Query(
        name,
        "<!",
        doc,
        sql,
        params=tuple(
            [
                *c.tenant_param(),
                "run_key text|null",
                "parent_run_id uuid|null",
                "kind text",
                "input jsonb",
                "priority smallint",
                "trace_id text|null",
                *(f"{e} {c.model.table('runs').column(e).type}|null" for e in extra),
            ]
        ),
    )


def _with_lease(c: Ctx) -> tuple[str, str]:
    """The effective status and lease columns, and the join to the active attempt."""
    columns = (
        "CASE WHEN q.state = 'running' THEN q.visible_at END AS lease_expires_at,\n"
        f"    q.attempt_no AS current_attempt,\n    {effective_status('r', 'q')} AS effective_status"
    )
    return columns, live_row_join(c.keyed("run_id"), quote(c.model.schema), "r", "q")


def get_run(c: Ctx) -> Query:
    columns = ", ".join(f"r.{col.name}" for col in c.model.table("runs").columns)
    lease, join = _with_lease(c)
    sql = f"SELECT {columns},\n    {lease}\nFROM {c.t('runs')} AS r\n{join}\n{where(c.match('r', 'run_id'))}"
    doc = (
        "One run by key, with its effective status: status is what the last writer stored;",
        "effective_status reads the live row's lease (running only while it is live,",
        "claimable once it ran out, failed if that was the last attempt).",
        "current_attempt: the attempts started so far (null once the run ended).",
        f"index: {c.path('get_run').index}; the live row by run_queue_pkey",
    )
    return Query("get_run", "^", doc, sql, params=tuple([*c.tenant_param(), "run_id uuid"]))


def child_runs(c: Ctx) -> Query:
    columns = ", ".join(f"r.{col}" for col in c.keyed(*RUN_SUMMARY))
    lease, join = _with_lease(c)
    sql = (
        f"SELECT {columns},\n    {lease}\nFROM {c.t('runs')} AS r\n{join}\n"
        + where(*c.tenant_filter("r"), "r.parent_run_id = :parent_run_id")
        + "\nORDER BY r.created_at, r.run_id"
    )
    doc = (
        "The child runs of a run (multi-agent tree), oldest first, with their effective status.",
        f"index: {c.path('child_runs').index}",
    )
    return Query("child_runs", "", doc, sql, params=tuple([*c.tenant_param(), "parent_run_id uuid"]))


def transition_ctes(c: Ctx, *, counted: bool = False) -> str:
    """WITH ... moved (the run, if the transition is allowed), its live row following
    (requeued/waiting, or gone once terminal), closed (its attempt). counted: the live
    row's event counter is taken too (counter AS: key, run_created_at, event_seq)."""
    pairs = ",\n        ".join(f"('{a}', '{b}')" for a, b in TRANSITIONS)
    terminal = sql_list(TERMINAL_RUN_STATUSES)
    counter = (
        f""",
counter AS (
    SELECT {c.names("run_id")}, run_created_at, event_seq FROM requeued
    UNION ALL
    SELECT {c.names("run_id")}, run_created_at, event_seq FROM gone
)"""
        if counted
        else ""
    )
    return f"""WITH allowed (from_status, to_status) AS (
    VALUES
        {pairs}
),
live AS (
    SELECT {c.cols("q", "run_id")}
    FROM {c.t("run_queue")} AS q
    {where(c.match("q", "run_id"), pad=4)}
    FOR UPDATE
),
moved AS (
    UPDATE {c.t("runs")} AS r
    SET status = t.to_status,
        version = r.version + 1,
        updated_at = now(),
        wake_at = CASE WHEN t.to_status = 'queued' THEN {c.now} ELSE r.wake_at END,
        finished_at = CASE WHEN t.to_status IN ({terminal}) THEN {c.now} END
    FROM allowed AS t, (SELECT count(*) AS locked FROM live) AS lock_first{c.clock()}
    {
        where(
            c.match("r", "run_id"),
            "r.version = CAST(:expected_version AS bigint)",
            "t.from_status = r.status",
            "t.to_status = CAST(:to_status AS text)",
            pad=4,
        )
    }
    {returning(c.cols("r", "run_id"), "r.status", "r.version")}
),
{_following(c, counted)}{counter}"""


def _following(c: Ctx, counted: bool) -> str:
    """requeued, gone, closed: the moved run's live row follows it (queued or waiting,
    or deleted once terminal) and its active attempt ends (interrupted)."""
    terminal = sql_list(TERMINAL_RUN_STATUSES)
    step = "\n        , event_seq = q.event_seq + 1" if counted else ""
    seq = ", q.event_seq" if counted else ""
    return f"""requeued AS (
    UPDATE {c.t("run_queue")} AS q
    SET state = m.status,
        visible_at = CASE WHEN m.status = 'queued' THEN {c.now} ELSE {NEVER} END,
        lease_token_hash = NULL, worker_id = NULL{step}
    FROM moved AS m{c.clock()}
    {where(c.join("q", "m", "run_id"), "m.status IN ('queued', 'waiting')", pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at{seq}
),
gone AS (
    DELETE FROM {c.t("run_queue")} AS q
    USING moved AS m
    {where(c.join("q", "m", "run_id"), f"m.status IN ({terminal})", pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at{
        seq.replace("q.event_seq", "q.event_seq + 1 AS event_seq")
    }
),
closed AS (
    UPDATE {c.t("attempts")} AS a
    SET status = 'interrupted', ended_at = now(), interruption_reason = 'run_' || m.status
    FROM moved AS m
    {where(c.join("a", "m", "run_id"), "a.status = 'active'", pad=4)}
    RETURNING a.attempt_no
)"""


def transition_run(c: Ctx) -> Query:
    sql = f"""{transition_ctes(c)}
SELECT m.version
FROM moved AS m
LEFT JOIN (SELECT count(*) AS attempts_closed FROM closed) AS done ON true
LEFT JOIN (SELECT count(*) AS live_rows FROM requeued) AS kept ON true
LEFT JOIN (SELECT count(*) AS live_rows FROM gone) AS left_live ON true"""
    doc = c.clocked(
        "Change a run's status if its version is still expected_version and the",
        "transition is one of the allowed list (the VALUES below); the database CHECKs",
        "only the status set, so this list is where transitions are enforced.",
        "Anything else (cancelled->running, succeeded->anything, a stale version) changes",
        "nothing and returns no row. The live row follows (queued: visible now; waiting:",
        "never, until a transition queues it again; terminal: deleted). The run's active",
        "attempt, if any, is ended",
        "(interrupted, reason run_<new status>): leaving 'running' makes the worker's",
        "next fenced write or heartbeat fail, and an attempt a lease claim left",
        "unclaimed is cleaned up.",
        "Lock order live row -> run -> attempt: the claim's and the endings' too.",
        f"index: {c.path('transition_run').index}; the live row by run_queue_pkey",
        "returns: the new version, or nothing",
    )
    return Query(
        "transition_run",
        "$",
        doc,
        sql,
        params=tuple([*c.tenant_param(), "run_id uuid", "expected_version bigint", "to_status text"]),
    )
