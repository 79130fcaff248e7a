"""One builder per table. Each names the invariant behind every constraint and the
access path behind every index; derive() assembles them."""

from __future__ import annotations

from typing import Literal

import agentddl.generator.model.features as features
import agentddl.generator.model.parts as parts
import agentddl.generator.model.tuning as tuning
from agentddl.generator.model.layout import (
    LIVE_SET,
    finished_runs_btree,
    legacy_attempt_index,
    legacy_run_indexes,
)
from agentddl.generator.model.scope import (
    ATTEMPT_STATUSES,
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    Scope,
    size_check,
    sql_list,
)
from agentddl.generator.model.types import (
    Check,
    Column,
    ForeignKey,
    Index,
    Table,
)

NIL_UUID = "'00000000-0000-0000-0000-000000000000'::uuid"


def tenants(s: Scope) -> Table:
    assert s.tenant
    return Table(
        name="tenants",
        comment="Tenants; deleting one follows the profile's on_tenant_delete policy.",
        columns=(
            Column(s.tenant, s.profile.tenancy.type, comment="Tenant key."),
            Column("name", "text", comment="Display name."),
            Column("created_at", "timestamptz", default="now()"),
        ),
        primary_key=(s.tenant,),
        checks=(Check("tenants_name_length", "char_length(name) BETWEEN 1 AND 200", "bounded name"),),
        tenant_owned=False,
    )


def runs(s: Scope) -> Table:
    return Table(
        name="runs",
        comment="Durable run record: one row per run, updated by key with a version check.",
        columns=_run_columns(s),
        primary_key=s.keyed("run_id"),
        checks=_run_checks(s),
        foreign_keys=_run_foreign_keys(s),
        uniques=(),
        indexes=_run_indexes(s),
        storage=tuning.run_row_storage(s.profile),
    )


def _run_foreign_keys(s: Scope) -> tuple[ForeignKey, ...]:
    p = s.profile
    t = s.tenant
    on_tenant_delete: Literal["CASCADE", "RESTRICT"] = (
        "CASCADE" if p.tenancy.on_tenant_delete == "cascade" else "RESTRICT"
    )
    fks = [
        ForeignKey(
            "runs_parent_run_fkey",
            s.keyed("parent_run_id"),
            "runs",
            s.keyed("run_id"),
            "CASCADE",
            "a child run belongs to a parent run of the same tenant",
        )
    ]
    if t:
        fks.insert(
            0,
            ForeignKey(
                "runs_tenant_fkey",
                (t,),
                "tenants",
                (t,),
                on_tenant_delete,
                "runs belong to a tenant",
            ),
        )
    return tuple(fks)


def _run_columns(s: Scope) -> tuple[Column, ...]:
    p = s.profile
    return (
        *s.tenant_columns(),
        Column("run_id", "uuid", default=s.uuid_default, comment="Run identity."),
        Column(
            "created_at",
            "timestamptz",
            default="now()",
            comment="Immutable; children carry it as run_created_at for partitioning.",
        ),
        Column(
            "run_key",
            "text",
            nullable=True,
            comment="Caller's idempotency key for starting the run (unique per parent).",
        ),
        Column("parent_run_id", "uuid", nullable=True, comment="Parent in a multi-agent tree."),
        Column("kind", "text", comment="Workflow or agent name."),
        Column("status", "text", default="'queued'", comment="Lifecycle state."),
        Column("version", "bigint", default="1", comment="Optimistic concurrency version."),
        Column(
            "fencing_token",
            "bigint",
            default="0",
            comment="Incremented on every claim; late writes from older claims fail.",
        ),
        Column("priority", "smallint", default="0", comment="Higher is claimed first."),
        Column("wake_at", "timestamptz", default="now()", comment="Not claimed before this."),
        Column("attempt_count", "integer", default="0", comment="Attempts started so far."),
        Column(
            "max_attempts",
            "integer",
            default=str(p.lease.max_attempts),
            comment="After this many attempts an expired lease fails the run.",
        ),
        Column("trace_id", "text", nullable=True, comment="W3C trace id (32 hex)."),
        Column(
            "input",
            "jsonb",
            default="'{}'::jsonb",
            compression=s.compression,
            comment="Run input, size-bounded.",
        ),
        Column(
            "result",
            "jsonb",
            nullable=True,
            compression=s.compression,
            comment="Final result, size-bounded.",
        ),
        Column("updated_at", "timestamptz", default="now()"),
        Column("finished_at", "timestamptz", nullable=True, comment="Set on a terminal status."),
        *parts.session_columns(s),
        *parts.detail_columns(s, "runs"),
    )


def _run_checks(s: Scope) -> tuple[Check, ...]:
    p = s.profile
    return (
        Check(
            "runs_status_check",
            f"status IN ({sql_list(RUN_STATUSES)})",
            "status is one of the lifecycle states",
        ),
        Check("runs_version_check", "version > 0", "versions start at 1 and only grow"),
        Check("runs_fencing_token_check", "fencing_token >= 0", "fencing tokens only grow"),
        Check(
            "runs_attempts_check",
            "attempt_count >= 0 AND max_attempts > 0",
            "attempt counters are sane",
        ),
        Check(
            "runs_finished_check",
            f"(status IN ({sql_list(TERMINAL_RUN_STATUSES)})) = (finished_at IS NOT NULL)",
            "finished_at is set exactly when the run is terminal",
        ),
        Check(
            "runs_not_own_parent_check",
            "parent_run_id IS DISTINCT FROM run_id",
            "a run is not its own parent",
        ),
        Check("runs_trace_id_check", "trace_id ~ '^[0-9a-f]{32}$'", "trace ids are W3C trace ids"),
        Check("runs_kind_check", "char_length(kind) BETWEEN 1 AND 200", "bounded workflow name"),
        Check("runs_run_key_check", "char_length(run_key) BETWEEN 1 AND 200", "bounded run key"),
        size_check("runs", "input", p.payload.inline_limit, "run input stays bounded"),
        size_check("runs", "result", p.payload.inline_limit, "run result stays bounded"),
        *parts.session_checks(s),
        *parts.detail_checks(s, "runs"),
    )


def _run_indexes(s: Scope) -> tuple[Index, ...]:
    return (
        Index(
            "runs_identity_key",
            "runs",
            s.keyed("run_id", "created_at"),
            serves=("checkpoints_run_fkey", "events_run_fkey"),
            why="FK target that pins run_created_at on partitioned children to the run's own created_at",
            unique=True,
        ),
        _run_key_index(s),
        Index(
            "runs_parent_idx",
            "runs",
            s.keyed("parent_run_id"),
            serves=("runs_parent_run_fkey", "child_runs"),
            why="children of a run (multi-agent trees) and the parent FK's cascade",
            where="parent_run_id IS NOT NULL",
        ),
        *(
            (_finished_index(s),)
            if s.layout >= LIVE_SET
            else legacy_run_indexes(s.claim_keyed("priority DESC", "wake_at"))
        ),
        *parts.session_indexes(s),
    )


def _finished_index(s: Scope) -> Index:
    """Retention finds finished runs by finished_at. From 16 a BRIN index keeps the
    completion's update HOT (a summarizing index does not block HOT); before, a partial
    B-tree, and the completion is the one update of runs that is not HOT."""
    if features.has(s.version, "hot_with_brin"):
        return Index(
            "runs_finished_idx",
            "runs",
            ("finished_at",),
            serves=("purge_finished_runs",),
            why="retention: finished runs older than the window (BRIN: summarizing, so updates stay HOT)",
            method="brin",
        )
    return finished_runs_btree()


def _run_key_index(s: Scope) -> Index:
    why = "start_run: one run per (parent, run_key); root runs (no parent) count as one parent"
    if features.has(s.version, "nulls_not_distinct"):
        return Index(
            "runs_run_key_key",
            "runs",
            s.keyed("parent_run_id", "run_key"),
            serves=("start_run",),
            why=why,
            unique=True,
            where="run_key IS NOT NULL",
            nulls_not_distinct=True,
        )
    return Index(
        "runs_run_key_key",
        "runs",
        s.keyed(f"(coalesce(parent_run_id, {NIL_UUID}))", "run_key"),
        serves=("start_run",),
        why=why,
        unique=True,
        where="run_key IS NOT NULL",
    )


def attempts(s: Scope) -> Table:
    return Table(
        name="attempts",
        comment="One execution attempt of a run, holding a time-bounded lease.",
        columns=_attempts_columns(s),
        primary_key=s.keyed("run_id", "attempt_no"),
        checks=_attempts_checks(s),
        foreign_keys=(s.run_fk("attempts", "an attempt belongs to a run of the same tenant"),),
        indexes=(
            Index(
                "attempts_one_active_key",
                "attempts",
                s.keyed("run_id"),
                serves=("claim_run", "at most one active attempt per run"),
                # the lease claim's guard; updated once per attempt (when it ends)
                why="invariant: at most one active attempt per run (partial unique)",
                unique=True,
                where="status = 'active'",
            ),
            *(() if s.layout >= LIVE_SET else (legacy_attempt_index(),)),
        ),
        storage=tuning.hot_table_storage(s.profile, updates_per_step=0.5),
    )


def _attempts_columns(s: Scope) -> tuple[Column, ...]:
    return (
        *s.tenant_columns(),
        Column("run_id", "uuid"),
        Column("attempt_no", "integer", comment="1, 2, ... per run."),
        Column("fencing_token", "bigint", comment="The run's fencing token at claim time."),
        Column("worker_id", "text", comment="Which worker holds the lease."),
        Column(
            "lease_token_hash",
            "bytea",
            comment="sha256 of the lease token; the token is never stored.",
        ),
        Column("status", "text", default="'active'"),
        Column("started_at", "timestamptz", default="now()"),
        Column("heartbeat_at", "timestamptz", default="now()"),
        Column("lease_expires_at", "timestamptz", comment="The lease ends here unless renewed."),
        Column("ended_at", "timestamptz", nullable=True),
        Column(
            "interruption_reason",
            "text",
            nullable=True,
            comment="Why an attempt ended early: lease_expired, worker_shutdown, ...",
        ),
        Column("error", "text", nullable=True, comment="Bounded error summary, no stack dumps."),
    )


def _attempts_checks(s: Scope) -> tuple[Check, ...]:
    return (
        Check(
            "attempts_status_check",
            f"status IN ({sql_list(ATTEMPT_STATUSES)})",
            "status is an attempt state",
        ),
        Check(
            "attempts_ended_check",
            "(status = 'active') = (ended_at IS NULL)",
            "only active attempts are open",
        ),
        Check(
            "attempts_lease_check",
            "lease_expires_at > started_at",
            "a lease ends after it starts",
        ),
        Check(
            "attempts_token_hash_check",
            "octet_length(lease_token_hash) = 32",
            "a sha256 hash, not a token",
        ),
        Check("attempts_attempt_no_check", "attempt_no > 0", "attempt numbers start at 1"),
        Check("attempts_error_check", "char_length(error) <= 4000", "bounded error text"),
        Check("attempts_reason_check", "char_length(interruption_reason) <= 200", "bounded reason"),
    )
