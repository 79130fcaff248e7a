"""Node executions and the tool calls under them (profile model.nodes): recoverable
records, one row per run, node and node attempt; worker writes fenced like
save_checkpoint (render/queries/fence.py); lists never return bodies (output, input)."""

from __future__ import annotations

from agentddl.generator.render.queries.base import Ctx, Query, returning, where
from agentddl.generator.render.queries.fence import fence_cte, fenced_doc
from agentddl.generator.render.queries.history import fenced_params

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


def start_node(c: Ctx) -> Query:
    n = c.t("node_executions")
    next_attempt = (
        f"(SELECT coalesce(max(p.attempt), 0) + 1 FROM {n} AS p\n"
        f"     {where(c.join('p', 'f', 'run_id'), 'p.node_id = CAST(:node_id AS text)', pad=4)})"
    )
    sql = f"""{fence_cte(c)}
INSERT INTO {n} AS n
    ({c.names("run_id", "node_id", "attempt", "attempt_no", "fencing_token")})
SELECT {c.cols("f", "run_id")}, CAST(:node_id AS text),
    {next_attempt},
    f.attempt_no, f.fencing_token
FROM fence AS f
{returning("n.node_id", "n.attempt", "n.started_at")}"""
    doc = (
        fenced_doc("Record the next attempt of node :node_id of the caller's run"),
        "The node's attempt is its last + 1; (run, node, attempt) is the primary key, so",
        "two writers starting one node at once cannot both record the same attempt (the",
        "second gets a unique violation). An execution a crashed run attempt left",
        "'running' stays as it was: its attempt_no is not the run's active attempt.",
        f"index: {c.path('start_node').index}",
        "returns: node_id, attempt, started_at; or no row",
    )
    return Query("start_node", "<!", doc, sql, params=(*fenced_params(c), "node_id text"))


def finish_node(c: Ctx) -> Query:
    sql = f"""{fence_cte(c)}
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
        fenced_doc("End the caller's running execution of a node (succeeded or failed)"),
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
    sql = f"""{fence_cte(c)}
INSERT INTO {c.t("tool_calls")} AS t
    ({columns})
SELECT {c.cols("n", "run_id")}, n.node_id, n.attempt, CAST(:call_no AS integer), CAST(:tool AS text),
    CAST(:idempotency_key AS text), CAST(:input AS jsonb), f.fencing_token
FROM fence AS f
JOIN {c.t("node_executions")} AS n ON {c.join("n", "f", "run_id")}
{where(*_node_key("n"), "n.status = 'running'", "n.fencing_token = f.fencing_token")}
{returning("t.call_no", "t.created_at")}"""
    doc = (
        fenced_doc("Record tool call :call_no of the caller's running node execution before making it"),
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
    sql = f"""{fence_cte(c)}
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
        fenced_doc("Record a pending tool call's outcome"),
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
