"""Side effects: idempotent operations and the transactional outbox."""

from __future__ import annotations

import agentddl.generator.model.parts as parts
import agentddl.generator.model.tuning as tuning
from agentddl.generator.model.scope import OPERATION_STATUSES, Scope, size_check, sql_list
from agentddl.generator.model.types import Check, Column, Index, Table


def operations(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="operations",
        comment="Idempotent side effects: one row per (tenant, idempotency_key).",
        columns=(
            *s.tenant_columns(),
            Column("idempotency_key", "text", comment="Caller-chosen key of the effect."),
            Column("run_id", "uuid", comment="The run that asked for the effect."),
            Column("input_hash", "bytea", comment="sha256 of the request; a reuse must match it."),
            Column("fencing_token", "bigint", comment="Fencing token of the attempt that reserved it."),
            Column("status", "text", default="'pending'"),
            Column(
                "result",
                "jsonb",
                nullable=True,
                compression=s.compression,
                comment="The effect's result, returned to retries.",
            ),
            Column("created_at", "timestamptz", default="now()"),
            Column("completed_at", "timestamptz", nullable=True),
            *parts.detail_columns(s, "operations"),
        ),
        primary_key=s.keyed("idempotency_key"),
        checks=(
            Check(
                "operations_status_check",
                f"status IN ({sql_list(OPERATION_STATUSES)})",
                "status is an operation state",
            ),
            Check(
                "operations_completed_check",
                "(status = 'pending') = (completed_at IS NULL)",
                "completed_at is set exactly when the effect finished",
            ),
            Check(
                "operations_key_check",
                "char_length(idempotency_key) BETWEEN 1 AND 200",
                "bounded idempotency key",
            ),
            Check("operations_input_hash_check", "octet_length(input_hash) = 32", "a sha256 hash"),
            size_check("operations", "result", p.payload.inline_limit, "bounded result"),
            *parts.detail_checks(s, "operations"),
        ),
        foreign_keys=(s.run_fk("operations", "an operation belongs to a run of the same tenant"),),
        indexes=(
            Index(
                "operations_run_idx",
                "operations",
                s.keyed("run_id"),
                serves=("operations_run_fkey", "run_operations"),
                why="a run's operations, and the run FK's cascade on delete",
            ),
        ),
        storage=tuning.hot_table_storage(p, updates_per_step=0.1),
    )


def outbox(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="outbox",
        comment="Transactional outbox: written with the state change, delivered by the relay.",
        columns=_outbox_columns(s),
        primary_key=s.keyed("message_id"),
        checks=_outbox_checks(s),
        foreign_keys=(s.run_fk("outbox", "a message belongs to a run of the same tenant"),),
        indexes=(
            Index(
                "outbox_pending_idx",
                "outbox",
                ("available_at",),
                serves=("relay_claim", "health_outbox_lag"),
                why="relay: pending messages in order; partial, so it holds only what is pending",
                where="delivered_at IS NULL AND dead_at IS NULL",
            ),
            Index(
                "outbox_dead_idx",
                "outbox",
                ("dead_at",),
                serves=("dead_letters", "health_dead_letters"),
                why="dead letters, oldest first; partial, so it holds only them",
                where="dead_at IS NOT NULL",
            ),
            Index(
                "outbox_run_idx",
                "outbox",
                s.keyed("run_id"),
                serves=("outbox_run_fkey",),
                why="the run FK's cascade on delete",
            ),
            Index(
                "outbox_delivered_idx",
                "outbox",
                ("delivered_at",),
                serves=("purge_outbox",),
                why="retention: delivered messages older than the window, deleted in batches",
                where="delivered_at IS NOT NULL",
            ),
        ),
        storage=tuning.hot_table_storage(p, updates_per_step=0.5),
    )


def _outbox_columns(s: Scope) -> tuple[Column, ...]:
    p = s.profile
    return (
        *s.tenant_columns(),
        Column("message_id", "uuid", default=s.uuid_default, comment="Consumers dedupe by this id."),
        Column("run_id", "uuid"),
        Column("topic", "text"),
        Column(
            "payload",
            "jsonb",
            compression=s.compression,
            comment=f"The message, at most {p.payload.outbox_limit} bytes.",
        ),
        Column("created_at", "timestamptz", default="now()"),
        Column("available_at", "timestamptz", default="now()", comment="Not relayed before this."),
        Column("delivery_attempts", "integer", default="0"),
        Column(
            "max_attempts",
            "integer",
            default=str(p.outbox.max_attempts),
            comment="Delivery attempts before the message is dead-lettered.",
        ),
        Column("claimed_by", "text", nullable=True, comment="Relay instance holding the claim."),
        Column(
            "claimed_until",
            "timestamptz",
            nullable=True,
            comment="The relay's claim ends here.",
        ),
        Column("delivered_at", "timestamptz", nullable=True),
        Column("last_error", "text", nullable=True, comment="Why the last delivery failed (bounded)."),
        Column(
            "dead_at",
            "timestamptz",
            nullable=True,
            comment="Dead-lettered: no more attempts until an operator requeues it.",
        ),
    )


def _outbox_checks(s: Scope) -> tuple[Check, ...]:
    p = s.profile
    return (
        Check("outbox_topic_check", "char_length(topic) BETWEEN 1 AND 200", "bounded topic"),
        size_check("outbox", "payload", p.payload.outbox_limit, "bounded message"),
        Check(
            "outbox_attempts_check",
            "delivery_attempts >= 0 AND max_attempts > 0",
            "attempt counters are sane",
        ),
        Check(
            "outbox_claim_check",
            "(claimed_by IS NULL) = (claimed_until IS NULL)",
            "a claim has an owner and an end",
        ),
        Check("outbox_error_check", "char_length(last_error) <= 2000", "bounded error text"),
        Check(
            "outbox_dead_check",
            "dead_at IS NULL OR (delivered_at IS NULL AND claimed_by IS NULL)",
            "a dead letter is neither delivered nor claimed",
        ),
    )
