"""The optional parts' queries (profile `model:`): node executions and tool calls,
approvals, sessions. Worker writes are fenced like save_checkpoint: the caller's active
attempt, its lease token and the run's fencing token (a CTE `fence` locks them first,
attempt before run, the lock order of every attempt query). Lists are compact: they never
return bodies (output, input, result, request)."""

from __future__ import annotations

from agentddl.generator.model.parts import APPROVAL_DECISIONS
from agentddl.generator.model.scope import sql_list
from agentddl.generator.render.queries.base import Ctx, Query, returning, where
from agentddl.generator.render.queries.history import fenced_params, fenced_run
from agentddl.generator.render.queries.runs import RUN_SUMMARY, start_run, transition_ctes

NODE_SUMMARY = ("run_id", "node_id", "attempt", "attempt_no", "status", "started_at", "ended_at")
TOOL_CALL_SUMMARY = (
    "run_id",
    "node_id",
    "node_attempt",
    "call_no",
    "tool",
    "idempotency_key",
    "status",
    "created_at",
    "completed_at",
)
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


def _fence(c: Ctx) -> str:
    """WITH fence: the caller's live row, if the caller holds its lease (fenced_run)."""
    columns = f"{c.cols('q', 'run_id')}, q.attempt_no, q.fencing_token, q.worker_id"
    return f"WITH fence AS (\n    SELECT {columns}\n    " + fenced_run(c).replace("\n", "\n    ") + "\n)"


def _fenced_doc(what: str) -> str:
    return f"{what}, fenced: a stale or forged writer, or a run no longer running, gets no row."


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


def start_node(c: Ctx) -> Query:
    n = c.t("node_executions")
    next_attempt = (
        f"(SELECT coalesce(max(p.attempt), 0) + 1 FROM {n} AS p\n"
        f"     {where(c.join('p', 'f', 'run_id'), 'p.node_id = CAST(:node_id AS text)', pad=4)})"
    )
    sql = f"""{_fence(c)}
INSERT INTO {n} AS n
    ({c.names("run_id", "node_id", "attempt", "attempt_no", "fencing_token")})
SELECT {c.cols("f", "run_id")}, CAST(:node_id AS text),
    {next_attempt},
    f.attempt_no, f.fencing_token
FROM fence AS f
{returning("n.node_id", "n.attempt", "n.started_at")}"""
    doc = (
        _fenced_doc("Record the next attempt of node :node_id of the caller's run"),
        "The node's attempt is its last + 1; (run, node, attempt) is the primary key, so",
        "two writers starting one node at once cannot both record the same attempt (the",
        "second gets a unique violation). An execution a crashed run attempt left",
        "'running' stays as it was: its attempt_no is not the run's active attempt.",
        f"index: {c.path('start_node').index}",
        "returns: node_id, attempt, started_at; or no row",
    )
    return Query("start_node", "<!", doc, sql, params=(*fenced_params(c), "node_id text"))


def finish_node(c: Ctx) -> Query:
    sql = f"""{_fence(c)}
UPDATE {c.t("node_executions")} AS n
SET status = CAST(:status AS text),
    output = CAST(:output AS jsonb),
    error = CAST(:error AS text),
    ended_at = now()
FROM fence AS f
{
        where(
            c.join("n", "f", "run_id"),
            "n.node_id = CAST(:node_id AS text)",
            "n.attempt = CAST(:attempt AS integer)",
            "n.status = 'running'",
            "n.fencing_token = f.fencing_token",
            "CAST(:status AS text) IN ('succeeded', 'failed')",
        )
    }
{returning("n.node_id", "n.attempt", "n.status", "n.ended_at")}"""
    doc = (
        _fenced_doc("End the caller's running execution of a node (succeeded or failed)"),
        "Only the run attempt that started it ends it, once.",
        f"index: {c.path('finish_node').index}",
        "returns: node_id, attempt, status, ended_at; or no row",
    )
    params = (
        *fenced_params(c),
        "node_id text",
        "attempt integer",
        "status text (succeeded | failed)",
        "output jsonb|null (a summary, size-bounded)",
        "error text|null",
    )
    return Query("finish_node", "<!", doc, sql, params=params)


def node_execution(c: Ctx) -> Query:
    columns = ", ".join(f"n.{col.name}" for col in c.model.table("node_executions").columns)
    sql = (
        f"SELECT {columns}\nFROM {c.t('node_executions')} AS n\n"
        + where(c.match("n", "run_id"), "n.node_id = :node_id")
        + "\nORDER BY n.attempt DESC\nLIMIT 1"
    )
    doc = (
        "By run_id + node_id: the node's latest execution, with its output (seed 003).",
        f"index: {c.path('node_execution').index} (backward scan)",
    )
    params = (*c.tenant_param(), "run_id uuid", "node_id text")
    return Query("node_execution", "^", doc, sql, params=params)


def run_node_executions(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('n', *NODE_SUMMARY)}\nFROM {c.t('node_executions')} AS n\n"
        + where(c.match("n", "run_id"))
        + "\nORDER BY n.node_id, n.attempt"
    )
    doc = (
        "A run's node executions by node and attempt (compact: no output or error).",
        f"index: {c.path('run_node_executions').index}",
    )
    return Query("run_node_executions", "", doc, sql, params=(*c.tenant_param(), "run_id uuid"))


def _node_key(alias: str) -> tuple[str, ...]:
    return (
        f"{alias}.node_id = CAST(:node_id AS text)",
        f"{alias}.attempt = CAST(:node_attempt AS integer)",
    )


def record_tool_call(c: Ctx) -> Query:
    columns = c.names(
        "run_id", "node_id", "node_attempt", "call_no", "tool", "idempotency_key", "input", "fencing_token"
    )
    sql = f"""{_fence(c)}
INSERT INTO {c.t("tool_calls")} AS t
    ({columns})
SELECT {c.cols("n", "run_id")}, n.node_id, n.attempt, CAST(:call_no AS integer), CAST(:tool AS text),
    CAST(:idempotency_key AS text), CAST(:input AS jsonb), f.fencing_token
FROM fence AS f
JOIN {c.t("node_executions")} AS n ON {c.join("n", "f", "run_id")}
{where(*_node_key("n"), "n.status = 'running'", "n.fencing_token = f.fencing_token")}
{returning("t.call_no", "t.created_at")}"""
    doc = (
        _fenced_doc("Record tool call :call_no of the caller's running node execution before making it"),
        "A call with an external effect names its operation (idempotency_key, reserved",
        "with reserve_operation). The primary key rejects a second call_no.",
        f"index: {c.path('record_tool_call').index}; the node execution by its primary key",
        "returns: call_no, created_at; or no row",
    )
    params = (
        *fenced_params(c),
        "node_id text",
        "node_attempt integer",
        "call_no integer",
        "tool text",
        "idempotency_key text|null",
        "input jsonb (redacted, size-bounded)",
    )
    return Query("record_tool_call", "<!", doc, sql, params=params)


def complete_tool_call(c: Ctx) -> Query:
    sql = f"""{_fence(c)}
UPDATE {c.t("tool_calls")} AS t
SET status = CAST(:status AS text),
    result = CAST(:result AS jsonb),
    error = CAST(:error AS text),
    completed_at = now()
FROM fence AS f
{
        where(
            c.join("t", "f", "run_id"),
            "t.node_id = CAST(:node_id AS text)",
            "t.node_attempt = CAST(:node_attempt AS integer)",
            "t.call_no = CAST(:call_no AS integer)",
            "t.status = 'pending'",
            "t.fencing_token <= f.fencing_token",
            "CAST(:status AS text) IN ('succeeded', 'failed')",
        )
    }
{returning("t.call_no", "t.status", "t.completed_at")}"""
    doc = (
        _fenced_doc("Record a pending tool call's outcome"),
        "The run's current holder may complete a call an earlier attempt left pending",
        "(reconciliation after a crash); a call is completed once.",
        f"index: {c.path('complete_tool_call').index}",
        "returns: call_no, status, completed_at; or no row",
    )
    params = (
        *fenced_params(c),
        "node_id text",
        "node_attempt integer",
        "call_no integer",
        "status text (succeeded | failed)",
        "result jsonb|null (size-bounded)",
        "error text|null",
    )
    return Query("complete_tool_call", "<!", doc, sql, params=params)


def node_tool_calls(c: Ctx) -> Query:
    sql = (
        f"SELECT {c.cols('t', *TOOL_CALL_SUMMARY)}\nFROM {c.t('tool_calls')} AS t\n"
        + where(c.match("t", "run_id"), "t.node_id = :node_id", "t.node_attempt = :node_attempt")
        + "\nORDER BY t.call_no"
    )
    doc = (
        "A node execution's tool calls in order (compact: no input, result or error).",
        f"index: {c.path('node_tool_calls').index}",
    )
    params = (*c.tenant_param(), "run_id uuid", "node_id text", "node_attempt integer")
    return Query("node_tool_calls", "", doc, sql, params=params)


def request_approval(c: Ctx) -> Query:
    sql = f"""{_fence(c)}
INSERT INTO {c.t("approvals")} AS ap
    ({c.names("run_id", "node_id", "request", "requested_by", "fencing_token")})
SELECT {c.cols("f", "run_id")}, CAST(:node_id AS text), CAST(:request AS jsonb),
    CAST(:requested_by AS text), f.fencing_token
FROM fence AS f
{returning("ap.approval_id", "ap.requested_at")}"""
    doc = (
        _fenced_doc("Ask for an approval for the caller's run"),
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
