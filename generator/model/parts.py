"""The runtime model's optional parts (profile `model:`): node executions and their tool
calls, approvals, sessions. Each is a recoverable record under a run, keyed and joined by
the tenant-scoped key like the core tables, and goes with its run (cascade), so the runs'
retention is theirs too."""

from __future__ import annotations

import agentddl.generator.model.tuning as tuning
from agentddl.generator.model.scope import Scope, size_check, sql_list
from agentddl.generator.model.types import Check, Column, ForeignKey, Index, Table

NODE_STATUSES = ("running", "succeeded", "failed", "interrupted")
TOOL_CALL_STATUSES = ("pending", "succeeded", "failed")
APPROVAL_STATUSES = ("pending", "approved", "rejected", "cancelled")
APPROVAL_DECISIONS = ("approved", "rejected", "cancelled")
# Seed 002's note kinds; its fourth, the restartable summary, is a checkpoint here.
NOTE_KINDS = ("progress", "finding", "warning")
NOTE_BODY_LIMIT = 1000


def part_tables(s: Scope) -> tuple[Table, ...]:
    """The tables of the parts the profile switches on, in FK order."""
    parts = s.profile.model
    nodes = (node_executions(s), tool_calls(s)) if parts.nodes else ()
    notes = (attempt_notes(s),) if parts.notes else ()
    return (*nodes, *((approvals(s),) if parts.approvals else ()), *notes)


def session_columns(s: Scope) -> tuple[Column, ...]:
    """Nullable, so switching sessions on later is an online ADD COLUMN."""
    if not s.profile.model.sessions:
        return ()
    return (
        Column("user_id", "text", nullable=True, comment="The user the run acts for (your identity key)."),
        Column("session_id", "uuid", nullable=True, comment="The user's session (conversation)."),
    )


def session_checks(s: Scope) -> tuple[Check, ...]:
    if not s.profile.model.sessions:
        return ()
    return (
        Check("runs_user_id_check", "char_length(user_id) BETWEEN 1 AND 200", "bounded user id"),
        Check(
            "runs_session_user_check",
            "session_id IS NULL OR user_id IS NOT NULL",
            "a session belongs to a user",
        ),
    )


def session_indexes(s: Scope) -> tuple[Index, ...]:
    if not s.profile.model.sessions:
        return ()
    return (
        Index(
            "runs_session_idx",
            "runs",
            s.keyed("session_id", "created_at DESC"),
            serves=("session_runs",),
            why="a session's runs, newest first (seed 004); partial: runs outside a session stay out",
            where="session_id IS NOT NULL",
        ),
    )


def detail_columns(s: Scope, table: str) -> tuple[Column, ...]:
    """The seeds' descriptive columns (model.details): nullable, never indexed, so step
    writes that set them stay HOT-eligible and switching them on is an online ADD COLUMN."""
    if not s.profile.model.details:
        return ()
    span = Column("span_id", "text", nullable=True, comment="W3C span id (16 hex).")
    if table == "runs":
        return (
            Column("workflow_version", "text", nullable=True, comment="Version of the workflow code run."),
            Column("current_step", "text", nullable=True, comment="The step the run is at (record_step)."),
            Column("error", "text", nullable=True, comment="The last failed attempt's error, bounded."),
            Column("started_at", "timestamptz", nullable=True, comment="Set by the first claim."),
            span,
        )
    return (
        Column("action", "text", nullable=True, comment="What the effect does (e.g. send_email)."),
        Column("provider_reference", "text", nullable=True, comment="The provider's id for the effect."),
        Column("trace_id", "text", nullable=True, comment="W3C trace id (32 hex)."),
        span,
    )


def detail_checks(s: Scope, table: str) -> tuple[Check, ...]:
    if not s.profile.model.details:
        return ()
    span = Check(f"{table}_span_id_check", "span_id ~ '^[0-9a-f]{16}$'", "span ids are W3C span ids")
    if table == "runs":
        return (
            Check(
                "runs_details_check",
                "char_length(workflow_version) BETWEEN 1 AND 200"
                " AND char_length(current_step) BETWEEN 1 AND 200",
                "bounded workflow version and step name",
            ),
            Check("runs_error_check", "char_length(error) <= 4000", "bounded error text"),
            span,
        )
    return (
        Check(
            "operations_details_check",
            "char_length(action) BETWEEN 1 AND 200 AND char_length(provider_reference) BETWEEN 1 AND 500",
            "bounded action and provider reference",
        ),
        Check("operations_trace_id_check", "trace_id ~ '^[0-9a-f]{32}$'", "trace ids are W3C trace ids"),
        span,
    )


def node_executions(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="node_executions",
        comment="One execution of a graph node by a run: (run, node, attempt) is unique.",
        columns=(
            *s.tenant_columns(),
            Column("run_id", "uuid"),
            Column("node_id", "text", comment="The node's name in the workflow graph."),
            Column("attempt", "integer", comment="1, 2, ... per (run, node)."),
            Column("attempt_no", "integer", comment="The run attempt (attempts.attempt_no) that ran it."),
            Column("fencing_token", "bigint", comment="Fencing token of that run attempt."),
            Column("status", "text", default="'running'"),
            Column(
                "output",
                "jsonb",
                nullable=True,
                compression=s.compression,
                comment="The node's result summary, size-bounded (state lives in checkpoints).",
            ),
            Column("error", "text", nullable=True, comment="Bounded error summary."),
            Column("started_at", "timestamptz", default="now()"),
            Column("ended_at", "timestamptz", nullable=True),
        ),
        primary_key=s.keyed("run_id", "node_id", "attempt"),
        checks=(
            Check(
                "node_executions_status_check",
                f"status IN ({sql_list(NODE_STATUSES)})",
                "status is a node execution state",
            ),
            Check(
                "node_executions_ended_check",
                "(status = 'running') = (ended_at IS NULL)",
                "ended_at is set exactly when the execution ended",
            ),
            Check("node_executions_attempt_check", "attempt > 0 AND attempt_no > 0", "attempts count from 1"),
            Check(
                "node_executions_node_id_check",
                "char_length(node_id) BETWEEN 1 AND 200",
                "bounded node name",
            ),
            Check("node_executions_error_check", "char_length(error) <= 4000", "bounded error text"),
            size_check("node_executions", "output", p.payload.event_limit, "output stays a summary"),
        ),
        foreign_keys=(s.run_fk("node_executions", "a node execution belongs to a run of the same tenant"),),
        storage=tuning.hot_table_storage(p, updates_per_step=1.0),
    )


def tool_calls(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="tool_calls",
        comment="A tool call made by a node execution: recorded before the call, completed after.",
        columns=_tool_calls_columns(s),
        primary_key=s.keyed("run_id", "node_id", "node_attempt", "call_no"),
        checks=_tool_calls_checks(s),
        foreign_keys=(
            ForeignKey(
                "tool_calls_node_execution_fkey",
                s.keyed("run_id", "node_id", "node_attempt"),
                "node_executions",
                s.keyed("run_id", "node_id", "attempt"),
                "CASCADE",
                "a tool call belongs to a node execution of the same tenant",
            ),
        ),
        storage=tuning.hot_table_storage(p, updates_per_step=0.5),
    )


def _tool_calls_columns(s: Scope) -> tuple[Column, ...]:
    return (
        *s.tenant_columns(),
        Column("run_id", "uuid"),
        Column("node_id", "text"),
        Column("node_attempt", "integer", comment="The node execution's attempt."),
        Column("call_no", "integer", comment="1, 2, ... per node execution."),
        Column("tool", "text", comment="The tool's name."),
        Column(
            "idempotency_key",
            "text",
            nullable=True,
            comment="The operation (operations.idempotency_key) holding the call's side effect.",
        ),
        Column("status", "text", default="'pending'"),
        Column(
            "input",
            "jsonb",
            compression=s.compression,
            comment="The call's arguments, redacted and size-bounded.",
        ),
        Column(
            "result",
            "jsonb",
            nullable=True,
            compression=s.compression,
            comment="The call's result, size-bounded.",
        ),
        Column("error", "text", nullable=True, comment="Bounded error summary."),
        Column("fencing_token", "bigint", comment="Fencing token of the attempt that made the call."),
        Column("created_at", "timestamptz", default="now()"),
        Column("completed_at", "timestamptz", nullable=True),
    )


def _tool_calls_checks(s: Scope) -> tuple[Check, ...]:
    p = s.profile
    return (
        Check(
            "tool_calls_status_check",
            f"status IN ({sql_list(TOOL_CALL_STATUSES)})",
            "status is a tool call state",
        ),
        Check(
            "tool_calls_completed_check",
            "(status = 'pending') = (completed_at IS NULL)",
            "completed_at is set exactly when the call finished",
        ),
        Check("tool_calls_call_no_check", "call_no > 0", "calls count from 1"),
        Check("tool_calls_tool_check", "char_length(tool) BETWEEN 1 AND 200", "bounded tool name"),
        Check(
            "tool_calls_key_check",
            "char_length(idempotency_key) BETWEEN 1 AND 200",
            "bounded idempotency key",
        ),
        Check("tool_calls_error_check", "char_length(error) <= 4000", "bounded error text"),
        size_check("tool_calls", "input", p.payload.event_limit, "bounded arguments"),
        size_check("tool_calls", "result", p.payload.inline_limit, "bounded result"),
    )


def approvals(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="approvals",
        comment="Human-in-the-loop approvals: requested by a run's attempt, decided once by a person.",
        columns=(
            *s.tenant_columns(),
            Column("run_id", "uuid"),
            Column("approval_id", "uuid", default=s.uuid_default, comment="Approval identity."),
            Column("node_id", "text", nullable=True, comment="The node waiting for it."),
            Column("status", "text", default="'pending'"),
            Column(
                "request",
                "jsonb",
                compression=s.compression,
                comment="What is to be approved, redacted and size-bounded.",
            ),
            Column("requested_by", "text", comment="The worker (or actor) that asked."),
            Column("requested_at", "timestamptz", default="now()"),
            Column("fencing_token", "bigint", comment="Fencing token of the attempt that asked."),
            Column("decided_by", "text", nullable=True, comment="Who decided."),
            Column("decided_at", "timestamptz", nullable=True),
            Column("decision_note", "text", nullable=True, comment="Why, bounded."),
        ),
        primary_key=s.keyed("run_id", "approval_id"),
        checks=(
            Check(
                "approvals_status_check",
                f"status IN ({sql_list(APPROVAL_STATUSES)})",
                "status is an approval state",
            ),
            Check(
                "approvals_decided_check",
                "(status = 'pending') = (decided_at IS NULL) AND (decided_at IS NULL) = (decided_by IS NULL)",
                "a decision has a time and a person, exactly when it is made",
            ),
            Check(
                "approvals_actor_check",
                "char_length(requested_by) BETWEEN 1 AND 200 AND decided_by ~ '^[^[:space:]]{1,200}$'",
                "bounded actor names; a decider is an identity (events name it as user:<id>)",
            ),
            Check("approvals_note_check", "char_length(decision_note) <= 2000", "bounded note"),
            size_check("approvals", "request", p.payload.event_limit, "bounded request"),
        ),
        foreign_keys=(s.run_fk("approvals", "an approval belongs to a run of the same tenant"),),
        indexes=(
            Index(
                "approvals_pending_idx",
                "approvals",
                s.keyed("requested_at"),
                serves=("pending_approvals",),
                why="a tenant's pending approvals, oldest first; partial, so it holds only what waits",
                where="status = 'pending'",
            ),
        ),
        storage=tuning.hot_table_storage(p, updates_per_step=0.05),
    )


def attempt_notes(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="attempt_notes",
        comment="Short notes an attempt leaves for its successors: progress, findings, warnings.",
        columns=(
            *s.tenant_columns(),
            Column("run_id", "uuid"),
            Column("attempt_no", "integer", comment="The attempt that wrote it."),
            Column("note_no", "integer", comment="1, 2, ... per attempt."),
            Column("kind", "text", comment=f"One of {', '.join(NOTE_KINDS)}."),
            Column("body", "text", comment=f"The note, at most {NOTE_BODY_LIMIT} characters."),
            Column("created_at", "timestamptz", default="now()"),
        ),
        primary_key=s.keyed("run_id", "attempt_no", "note_no"),
        checks=(
            Check(
                "attempt_notes_kind_check",
                f"kind IN ({sql_list(NOTE_KINDS)})",
                "a note is progress, a finding or a warning",
            ),
            Check(
                "attempt_notes_body_check",
                f"char_length(body) BETWEEN 1 AND {NOTE_BODY_LIMIT}",
                "notes stay short: a briefing, not a transcript",
            ),
            Check("attempt_notes_note_no_check", "note_no > 0", "notes count from 1"),
        ),
        foreign_keys=(
            ForeignKey(
                "attempt_notes_attempt_fkey",
                s.keyed("run_id", "attempt_no"),
                "attempts",
                s.keyed("run_id", "attempt_no"),
                "CASCADE",
                "a note belongs to an attempt of the same tenant",
            ),
        ),
        storage=tuning.hot_table_storage(p, updates_per_step=0.0),
    )
