"""The optional parts' queries (profile `model:`): sessions and approvals here, node
executions and tool calls in nodes.py, and transition_run_with_event. Worker writes are
fenced like save_checkpoint: the caller's active attempt, its lease token and the run's
fencing token (a CTE `fence` locks them first, attempt before run, the lock order of every
attempt query: fence.py). Lists are compact: they never return bodies (output, input,
result, request)."""

from __future__ import annotations

from agentddl.generator.model.parts import APPROVAL_DECISIONS
from agentddl.generator.model.scope import sql_list
from agentddl.generator.render.queries.base import Ctx, Query, returning, where
from agentddl.generator.render.queries.fence import fence_cte, fenced_doc
from agentddl.generator.render.queries.history import fenced_params
from agentddl.generator.render.queries.nodes import (
    complete_tool_call,
    finish_node,
    node_execution,
    node_tool_calls,
    record_tool_call,
    run_node_executions,
    start_node,
)
from agentddl.generator.render.queries.runs import RUN_SUMMARY, start_run, transition_ctes

APPROVAL_SUMMARY = (
    "run_id",
    "approval_id",
    "node_id",
    "status",
    "requested_by",
    "requested_at",
    "decided_by",
    "decided_at",
)


def part_queries(c: Ctx) -> tuple[Query, ...]:
    parts = c.model.parts
    sessions = (start_session_run(c), session_runs(c)) if parts.sessions else ()
    nodes = (
        (
            start_node(c),
            finish_node(c),
            node_execution(c),
            run_node_executions(c),
            record_tool_call(c),
            complete_tool_call(c),
            node_tool_calls(c),
        )
        if parts.nodes
        else ()
    )
    approvals = (
        (request_approval(c), decide_approval(c), pending_approvals(c), run_approvals(c))
        if parts.approvals
        else ()
    )
    return (transition_run_with_event(c), *sessions, *nodes, *approvals)


def start_session_run(c: Ctx) -> Query:
    details = ("workflow_version", "span_id") if c.model.parts.details else ()
    return start_run(c, name="start_session_run", extra=("user_id", "session_id", *details))


def session_runs(c: Ctx) -> Query:
    columns = c.cols("r", *RUN_SUMMARY, "user_id", "session_id")
    sql = (
        f"SELECT {columns}\nFROM {c.t('runs')} AS r\n"
        + where(*c.tenant_filter("r"), "r.session_id = :session_id")
        + "\nORDER BY r.created_at DESC\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "A session's runs, newest first, a page of :limit (compact: no input or result).",
        f"index: {c.path('session_runs').index}",
    )
    params = (*c.tenant_param(), "session_id uuid", "limit integer")
    return Query("session_runs", "", doc, sql, params=params)


def request_approval(c: Ctx) -> Query:
    sql = f"""{fence_cte(c)}
INSERT INTO {c.t("approvals")} AS ap
    ({c.names("run_id", "node_id", "request", "requested_by", "fencing_token")})
SELECT {c.cols("f", "run_id")}, CAST(:node_id AS text), CAST(:request AS jsonb),
    CAST(:requested_by AS text), f.fencing_token
FROM fence AS f
{returning("ap.approval_id", "ap.requested_at")}"""
    doc = (
        fenced_doc("Ask for an approval for the caller's run"),
        "Then move the run to waiting (transition_run_with_event) and end the attempt: a",
        "person decides with decide_approval, and the decision requeues nothing by itself.",
        f"index: {c.path('request_approval').index}",
        "returns: approval_id, requested_at; or no row",
    )
    params = (
        *fenced_params(c),
        "node_id text|null",
        "request jsonb (redacted, size-bounded)",
        "requested_by text",
    )
    return Query("request_approval", "<!", doc, sql, params=params)


def decide_approval(c: Ctx) -> Query:
    sql = f"""WITH decided AS (
    UPDATE {c.t("approvals")} AS ap
    SET status = CAST(:decision AS text),
        decided_by = CAST(:decided_by AS text),
        decided_at = now(),
        decision_note = CAST(:decision_note AS text)
    {
        where(
            c.match("ap", "run_id"),
            "ap.approval_id = :approval_id",
            "ap.status = 'pending'",
            f"CAST(:decision AS text) IN ({sql_list(APPROVAL_DECISIONS)})",
            pad=4,
        )
    }
    RETURNING {c.cols("ap", "run_id", "approval_id", "status", "decided_by", "decided_at")}
),
{_numbered(c)},
{
        _event_cte(
            c,
            "numbered",
            "d.event_seq",
            "'approval.' || d.status",
            "'user:' || d.decided_by",
            "jsonb_build_object('approval_id', d.approval_id)",
        )
    }
SELECT d.approval_id, d.status, d.decided_at, l.seq AS event_seq
FROM decided AS d
JOIN logged AS l ON true"""
    doc = (
        "Decide a pending approval (approved, rejected or cancelled) and append its event",
        "(approval.<decision>, actor user:<decided_by>) in one statement: both or neither.",
        "Decided once: a second decision finds it no longer pending and gets no row.",
        "decided_by is an identity without spaces (events name their actor with it).",
        f"index: {c.path('decide_approval').index}; the event's seq by events_pkey",
        "returns: approval_id, status, decided_at, event_seq; or no row",
    )
    params = (
        *c.tenant_param(),
        "run_id uuid",
        "approval_id uuid",
        "decision text (approved | rejected | cancelled)",
        "decided_by text",
        "decision_note text|null",
    )
    return Query("decide_approval", "<!", doc, sql, params=params)


def _numbered(c: Ctx) -> str:
    """numbered: each decided row with its run's next event seq: the live row's counter,
    taken by its UPDATE; a run that already left the live set has no writer left to race,
    so its history's last seq + 1 is safe there (events_pkey would refuse a duplicate)."""
    events = c.t("events")
    last = (
        f"(SELECT coalesce(max(e.seq), 0) + 1 FROM {events} AS e\n"
        f"         {where(c.join('e', 'r', 'run_id'), 'e.run_created_at = r.created_at', pad=8)})"
    )
    kept = "d.approval_id, d.status, d.decided_by"
    return f"""counted AS (
    UPDATE {c.t("run_queue")} AS q
    SET event_seq = q.event_seq + 1
    FROM decided AS d
    {where(c.join("q", "d", "run_id"), pad=4)}
    RETURNING {c.cols("q", "run_id")}, q.run_created_at, q.event_seq, {kept}
),
numbered AS (
    SELECT * FROM counted
    UNION ALL
    SELECT {c.cols("r", "run_id")}, r.created_at, {last}, {kept}
    FROM decided AS d
    JOIN {c.t("runs")} AS r ON {c.join("r", "d", "run_id")}
    WHERE NOT EXISTS (SELECT FROM counted AS n WHERE {c.join("n", "d", "run_id")})
)"""


def _event_cte(c: Ctx, source: str, seq: str, kind: str, actor: str, payload: str) -> str:
    """logged AS (INSERT the event of each row of `source` (alias d: key, run_created_at)
    at sequence number `seq`, an expression over d)."""
    return f"""logged AS (
    INSERT INTO {c.t("events")} AS ev
        ({c.names("run_id", "run_created_at", "seq", "kind", "actor", "payload")})
    SELECT {c.cols("d", "run_id")}, d.run_created_at, {seq}, {kind}, {actor}, {payload}
    FROM {source} AS d
    RETURNING ev.seq
)"""


def pending_approvals(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('ap', *APPROVAL_SUMMARY)}\nFROM {c.t('approvals')} AS ap\n"
        + where(*c.tenant_filter("ap"), "ap.status = 'pending'")
        + "\nORDER BY ap.requested_at\nLIMIT CAST(:limit AS integer)"
    )
    doc = (
        "Pending approvals, oldest first, a page of :limit (compact: no request body).",
        f"index: {c.path('pending_approvals').index}",
    )
    return Query("pending_approvals", "", doc, sql, params=(*c.tenant_param(), "limit integer"))


def run_approvals(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('ap', *APPROVAL_SUMMARY)}\nFROM {c.t('approvals')} AS ap\n"
        + where(c.match("ap", "run_id"))
        + "\nORDER BY ap.approval_id"
    )
    doc = (
        "A run's approvals (compact: no request body or note).",
        f"index: {c.path('run_approvals').index}",
    )
    return Query("run_approvals", "", doc, sql, params=(*c.tenant_param(), "run_id uuid"))


def transition_run_with_event(c: Ctx) -> Query:
    sql = f"""{transition_ctes(c, counted=True)},
moved_with_counter AS (
    SELECT {c.cols("m", "run_id")}, m.status, m.version, n.run_created_at, n.event_seq
    FROM moved AS m
    JOIN counter AS n ON {c.join("n", "m", "run_id")}
),
{
        _event_cte(
            c,
            "moved_with_counter",
            "d.event_seq",
            "'run.' || d.status",
            "CAST(:actor AS text)",
            "jsonb_build_object('version', d.version)",
        )
    }
SELECT m.version, l.seq AS event_seq
FROM moved AS m
JOIN logged AS l ON true
LEFT JOIN (SELECT count(*) AS attempts_closed FROM closed) AS done ON true"""
    doc = c.clocked(
        "transition_run and its event (run.<new status>, by :actor) in one statement:",
        "the state change and the event that records it commit together or not at all",
        "(seed 000). The same allowed transitions, version check and attempt ending as",
        "transition_run; a refused transition writes neither and returns no row.",
        f"index: {c.path('transition_run_with_event').index}; the event's seq by events_pkey",
        "returns: the new version and the event's seq, or nothing",
    )
    params = (
        *c.tenant_param(),
        "run_id uuid",
        "expected_version bigint",
        "to_status text",
        "actor text (system, agent:<id>, user:<id>)",
    )
    return Query("transition_run_with_event", "<!", doc, sql, params=params)
