"""The declared access paths: every query the runtime runs, and the index serving it."""

from __future__ import annotations

from agentddl.generator.model.types import AccessPath
from agentddl.generator.profile.model import ModelParts

_PATHS: tuple[tuple[str, str, str, str | None, str], ...] = (
    # name, table, kind, index, description
    (
        "start_run",
        "runs",
        "write",
        "runs_run_key_key",
        "Start a run; a repeated run_key returns the first.",
    ),
    ("get_run", "runs", "read", "runs_pkey", "Read one run by key."),
    ("child_runs", "runs", "read", "runs_parent_idx", "Children of a run in a multi-agent tree."),
    (
        "claim_run",
        "run_queue",
        "claim",
        "run_queue_visible_idx",
        "Claim the next visible live run (due, or its lease lapsed) and open an attempt.",
    ),
    (
        "claim_runs",
        "run_queue",
        "claim",
        "run_queue_visible_idx",
        "Claim up to n visible live runs at once (a worker that takes several).",
    ),
    (
        "expire_leases",
        "run_queue",
        "maintenance",
        "run_queue_visible_idx",
        "Housekeeping: close attempts whose lease ran out, requeue (or fail) their runs.",
    ),
    (
        "current_attempt",
        "attempts",
        "read",
        "attempts_one_active_key",
        "A run's active attempt, with its lease from the live row.",
    ),
    (
        "heartbeat",
        "run_queue",
        "write",
        "run_queue_pkey",
        "Renew the active attempt's lease.",
    ),
    (
        "complete_attempt",
        "run_queue",
        "write",
        "run_queue_pkey",
        "Finish the attempt and the run.",
    ),
    (
        "complete_attempts",
        "run_queue",
        "write",
        "run_queue_pkey",
        "Finish several attempts (and their runs) at once.",
    ),
    (
        "fail_attempt",
        "run_queue",
        "write",
        "run_queue_pkey",
        "Fail the attempt; retry or fail the run.",
    ),
    (
        "interrupt_attempt",
        "run_queue",
        "write",
        "run_queue_pkey",
        "Give the run back (shutdown, preemption) with a reason.",
    ),
    ("transition_run", "runs", "write", "runs_pkey", "Change a run's status with a version check."),
    (
        "save_checkpoint",
        "checkpoints",
        "write",
        "checkpoints_pkey",
        "Insert the next checkpoint (fenced).",
    ),
    (
        "latest_checkpoint",
        "checkpoints",
        "read",
        "checkpoints_pkey",
        "The newest checkpoint of a run.",
    ),
    ("append_event", "events", "write", "events_pkey", "Append the next event of a run (fenced)."),
    ("run_events", "events", "read", "events_pkey", "A run's history in order."),
    ("events_since", "events", "read", "events_since_idx", "A tenant's events after a known id."),
    (
        "events_in_window",
        "events",
        "read",
        "events_created_at_idx",
        "Events in a time window (export).",
    ),
    (
        "reserve_operation",
        "operations",
        "write",
        "operations_pkey",
        "Reserve an idempotent effect, or return the earlier one (conflict on another input).",
    ),
    ("complete_operation", "operations", "write", "operations_pkey", "Record an effect's result."),
    ("run_operations", "operations", "read", "operations_run_idx", "A run's effects."),
    ("enqueue_outbox", "outbox", "write", "outbox_pkey", "Write a message with the state change."),
    ("relay_claim", "outbox", "claim", "outbox_pending_idx", "The relay claims pending messages."),
    ("mark_delivered", "outbox", "write", "outbox_pkey", "The relay acknowledges a delivery."),
    (
        "fail_delivery",
        "outbox",
        "write",
        "outbox_pkey",
        "The relay reports a failed delivery: retried after a backoff, or dead-lettered.",
    ),
    ("dead_letters", "outbox", "read", "outbox_dead_idx", "Dead-lettered messages, oldest first."),
    (
        "requeue_dead_letter",
        "outbox",
        "write",
        "outbox_pkey",
        "Give a dead-lettered message a new round of attempts.",
    ),
    (
        "purge_finished_runs",
        "runs",
        "maintenance",
        "runs_finished_idx",
        "Retention: delete one batch of finished runs past the window.",
    ),
    (
        "purge_outbox",
        "outbox",
        "maintenance",
        "outbox_delivered_idx",
        "Retention: delete one batch of delivered messages past the window.",
    ),
    (
        "maintain_partitions",
        "events",
        "maintenance",
        None,
        "Create future partitions; drop expired ones.",
    ),
    (
        "health_stuck_runs",
        "run_queue",
        "health",
        None,
        "Live runs older than a threshold, oldest first: stuck, or nearing history retention.",
    ),
    (
        "health_expired_leases",
        "run_queue",
        "health",
        "run_queue_visible_idx",
        "Running live rows past their lease.",
    ),
    (
        "health_outbox_lag",
        "outbox",
        "health",
        "outbox_pending_idx",
        "Age of the oldest pending message.",
    ),
    (
        "health_dead_letters",
        "outbox",
        "health",
        "outbox_dead_idx",
        "Dead-lettered messages waiting for an operator.",
    ),
    ("health_partition_runway", "events", "health", None, "How far ahead partitions exist."),
)
# The combined state-change-plus-event path of the core tables (seed 000): one statement.
_CORE_EVENTS = (
    (
        "transition_run_with_event",
        "runs",
        "write",
        "runs_pkey",
        "Change a run's status (as transition_run) and append its event, in one statement.",
    ),
)
# The optional parts' paths (profile model:), after the core paths they extend.
_SESSIONS = (
    (
        "start_session_run",
        "runs",
        "write",
        "runs_run_key_key",
        "Start a run for a user's session (as start_run, with user_id and session_id).",
    ),
    ("session_runs", "runs", "read", "runs_session_idx", "A session's runs, newest first (compact)."),
)
_NODES = (
    (
        "start_node",
        "node_executions",
        "write",
        "node_executions_pkey",
        "Record the next attempt of a node, fenced by the run's lease.",
    ),
    (
        "finish_node",
        "node_executions",
        "write",
        "node_executions_pkey",
        "End a node execution (succeeded or failed), fenced.",
    ),
    (
        "node_execution",
        "node_executions",
        "read",
        "node_executions_pkey",
        "By run_id + node_id: the node's latest execution.",
    ),
    (
        "run_node_executions",
        "node_executions",
        "read",
        "node_executions_pkey",
        "A run's node executions in order (compact: no output bodies).",
    ),
    (
        "record_tool_call",
        "tool_calls",
        "write",
        "tool_calls_pkey",
        "Record a tool call before making it, fenced.",
    ),
    (
        "complete_tool_call",
        "tool_calls",
        "write",
        "tool_calls_pkey",
        "Record a tool call's result, fenced.",
    ),
    (
        "node_tool_calls",
        "tool_calls",
        "read",
        "tool_calls_pkey",
        "A node execution's tool calls in order (compact: no bodies).",
    ),
)
_APPROVALS = (
    (
        "request_approval",
        "approvals",
        "write",
        "approvals_pkey",
        "Ask for an approval, fenced by the run's lease.",
    ),
    (
        "decide_approval",
        "approvals",
        "write",
        "approvals_pkey",
        "Decide a pending approval once, and append its event, in one statement.",
    ),
    (
        "pending_approvals",
        "approvals",
        "read",
        "approvals_pending_idx",
        "A tenant's pending approvals, oldest first (compact).",
    ),
    ("run_approvals", "approvals", "read", "approvals_pkey", "A run's approvals (compact)."),
)
_NOTES = (
    (
        "append_attempt_note",
        "attempt_notes",
        "write",
        "attempt_notes_pkey",
        "Append a note (progress, finding, warning) to the caller's attempt, fenced.",
    ),
    (
        "run_attempt_notes",
        "attempt_notes",
        "read",
        "attempt_notes_pkey",
        "A run's notes, newest attempt and note first (a page; bodies are short).",
    ),
)
_DETAILS = (
    (
        "record_step",
        "runs",
        "write",
        "runs_pkey",
        "Record the step the run is at (current_step), fenced; HOT-eligible.",
    ),
    (
        "describe_operation",
        "operations",
        "write",
        "operations_pkey",
        "Set an operation's action, provider reference, trace and span, by its holder.",
    ),
)
# Row-level security reads the tenant from a setting: the runtime sets it per transaction.
_SET_TENANT = (
    "set_tenant",
    "runs",
    "write",
    None,
    "Name the transaction's tenant for row-level security (transaction-local: pooler-safe).",
)


def access_paths(row_level_security: bool = False, parts: ModelParts | None = None) -> tuple[AccessPath, ...]:
    """Every declared path; set_tenant first when row-level security reads the tenant,
    the switched-on parts' paths after the core ones."""
    on = parts or ModelParts()
    paths = (
        *((_SET_TENANT,) if row_level_security else ()),
        *_PATHS,
        *_CORE_EVENTS,
        *(_SESSIONS if on.sessions else ()),
        *(_NODES if on.nodes else ()),
        *(_APPROVALS if on.approvals else ()),
        *(_NOTES if on.notes else ()),
        *(_DETAILS if on.details else ()),
    )
    return tuple(
        AccessPath(name=name, table=table, description=description, kind=kind, index=index)
        for name, table, kind, index, description in paths
    )
