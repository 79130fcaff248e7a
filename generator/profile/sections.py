"""The typed profile's sections and fields. Every field has a default except what
identifies the profile.

Field descriptions become the published JSON Schema (schemas/profile.schema.json), so
they are written for the person editing a profile.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from agentddl.generator.profile.units import ByteSize, Duration, parse_duration, parse_size

SUPPORTED_MAJORS = (14, 15, 16, 17, 18)
# Every column name the generated tables use: the tenant column must not collide with one
# (a unit test keeps this list complete).
TABLE_COLUMNS = frozenset(
    [
        "run_id",
        "created_at",
        "run_key",
        "parent_run_id",
        "kind",
        "status",
        "version",
        "fencing_token",
        "priority",
        "wake_at",
        "attempt_count",
        "state",  # run_queue, the live set
        "visible_at",
        "event_seq",
        "checkpoint_seq",
        "metadata",  # checkpoints
        "max_attempts",
        "trace_id",
        "input",
        "result",
        "updated_at",
        "finished_at",
        "name",
        "attempt_no",
        "worker_id",
        "lease_token_hash",
        "started_at",
        "heartbeat_at",
        "lease_expires_at",
        "ended_at",
        "interruption_reason",
        "error",
        "run_created_at",
        "seq",
        "parent_seq",
        "state_schema_version",
        "next_nodes",
        "completed_nodes",
        "payload",
        "payload_ref",
        "payload_bytes",
        "payload_sha256",
        "event_id",
        "actor",
        "policy_version",
        "idempotency_key",
        "input_hash",
        "completed_at",
        "message_id",
        "topic",
        "available_at",
        "delivery_attempts",
        "claimed_by",
        "claimed_until",
        "delivered_at",
        "last_error",
        "dead_at",
        "user_id",
        "session_id",
        "node_id",
        "attempt",
        "output",
        "node_attempt",
        "call_no",
        "tool",
        "approval_id",
        "request",
        "requested_by",
        "requested_at",
        "decided_by",
        "decided_at",
        "decision_note",
        "note_no",
        "body",
        "workflow_version",
        "current_step",
        "span_id",
        "action",
        "provider_reference",
    ]
)
_RESERVED = {"user", "table", "select", "order", "group", "public", "pg_catalog", "all"}


def _identifier(value: str) -> str:
    # Lower-case, unquoted-safe names only: nothing from input is pasted into SQL,
    # and a name that needs quoting is a trap for every hand-written query later.
    if not value or len(value) > 48 or not value.replace("_", "a").isalnum():
        raise ValueError(f"expected a lower-case SQL name (a-z, 0-9, _; at most 48), got {value!r}")
    if value != value.lower() or value[0].isdigit() or not value.isascii():
        raise ValueError(f"expected a lower-case SQL name starting with a letter, got {value!r}")
    if value in _RESERVED or value.startswith("pg_"):
        raise ValueError(f"{value!r} is reserved in PostgreSQL; choose another name")
    return value


Identifier = Annotated[str, AfterValidator(_identifier)]


def duration_field(default: str, description: str) -> Any:
    """A duration field whose default is shown in the JSON Schema as a user writes it."""
    return Field(parse_duration(default), description=description, json_schema_extra={"default": default})


def size_field(default: str, description: str) -> Any:
    return Field(parse_size(default), description=description, json_schema_extra={"default": default})


class LockStrategy(StrEnum):
    skip_locked = "skip_locked"
    lease = "lease"
    optimistic = "optimistic"
    advisory = "advisory"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Engine(_Section):
    version: int = Field(
        16,
        description="PostgreSQL major version the schema targets (14..18).",
        json_schema_extra={"enum": list(SUPPORTED_MAJORS)},
    )

    @field_validator("version")
    @classmethod
    def _supported(cls, version: int) -> int:
        if version not in SUPPORTED_MAJORS:
            raise ValueError(f"expected a PostgreSQL major 14..18, got {version}")
        return version


class Tenancy(_Section):
    column: Identifier | None = Field(
        "tenant_id", description="Tenant key column on every table; null = single-tenant."
    )
    type: Literal["uuid", "bigint", "text"] = Field("uuid", description="Type of the tenant key.")
    row_level_security: bool = Field(
        False, description="Enable RLS: the app role sees only rows of the tenant in its session."
    )
    on_tenant_delete: Literal["cascade", "restrict"] = Field(
        "cascade",
        description="Deleting a tenant removes its runs and everything under them (cascade), "
        "or is refused while it has runs (restrict).",
    )

    @field_validator("column")
    @classmethod
    def _not_a_schema_column(cls, column: str | None) -> str | None:
        if column in TABLE_COLUMNS:
            raise ValueError(f"{column!r} is already a column of the schema; choose another name")
        return column

    @field_validator("row_level_security")
    @classmethod
    def _needs_a_tenant(cls, enabled: bool, info: ValidationInfo) -> bool:
        if enabled and info.data.get("column") is None:
            raise ValueError("row-level security needs a tenant column (tenancy.column)")
        return enabled


class Volume(_Section):
    steps_per_second: int = Field(200, ge=1, description="Peak agent steps per second.")
    runs_per_day: int = Field(100_000, ge=1, description="New runs per day.")
    checkpoint_bytes: ByteSize = size_field("16kB", description="Typical checkpoint payload size.")
    events_per_step: int = Field(2, ge=1, le=100, description="Events appended per step.")


class Retention(_Section):
    events: Duration = duration_field("30d", description="Keep events of runs created this recently.")
    checkpoints: Duration = duration_field("14d", description="Keep checkpoints this long.")
    outbox_delivered: Duration = duration_field("3d", description="Keep delivered outbox rows.")
    runs: Duration = duration_field("365d", description="Keep finished runs (and their operations).")
    partition_manager: Literal["builtin", "pg_partman"] = Field(
        "builtin",
        description="Who creates and drops partitions: generated SQL functions, or pg_partman.",
    )
    scheduler: Literal["external", "pg_cron"] = Field(
        "external", description="What runs the maintenance: your cron/Kubernetes job, or pg_cron."
    )
    runway: int = Field(4, ge=2, le=60, description="Future partitions kept created ahead.")


class Lease(_Section):
    duration: Duration = duration_field("60s", description="How long a claim lasts without a heartbeat.")
    max_attempts: int = Field(5, ge=1, le=1000, description="Attempts before a run fails.")


class Outbox(_Section):
    max_attempts: int = Field(
        10, ge=1, le=1000, description="Delivery attempts before a message is dead-lettered."
    )
    backoff: Duration = duration_field(
        "30s",
        description="Wait after a failed delivery before the next one; doubles with each attempt.",
    )


class Payload(_Section):
    compression: Literal["lz4", "pglz", "none"] = Field(
        "lz4", description="TOAST compression of checkpoint/event/outbox payload columns."
    )
    inline_limit: ByteSize = size_field(
        "64kB", description="Checkpoints larger than this are stored out of line (payload_ref)."
    )
    event_limit: ByteSize = size_field("8kB", description="Maximum size of one event's payload.")
    outbox_limit: ByteSize = size_field("64kB", description="Maximum size of one outbox message.")


class HotState(_Section):
    """Where the hot projection of running runs lives (seed 004): current step, progress
    and heartbeats. PostgreSQL stays the durable record either way."""

    store: Literal["redis", "none"] = Field(
        "none",
        description="redis: heartbeats and progress go to Redis (generate writes redis/: key layout, "
        "Lua scripts, a redis-py module) and PostgreSQL is written on state changes and a lease "
        "renewal every third of the lease; none: everything in PostgreSQL.",
    )
    running_ttl: Duration = duration_field(
        "24h",
        description="TTL of a running run's Redis keys, renewed by every heartbeat; a dead worker's "
        "projection is gone this long after its last one. At least lease.duration.",
    )
    terminal_ttl: Duration = duration_field(
        "1h", description="TTL of a finished or cancelled run's projection and cancel flag in Redis."
    )


class Distribution(_Section):
    """Scale-out beyond one server (issue 16). With citus, generate also writes citus.sql:
    every tenant table distributed by the tenant column, co-located; tenants a reference
    table; every named query scoped to one tenant (a router query on one shard)."""

    engine: Literal["none", "citus"] = Field(
        "none",
        description="none: one PostgreSQL server; citus: tables distributed by the tenant column "
        "with Citus (needs tenancy.column).",
    )
    shard_count: int | None = Field(
        None,
        ge=2,
        le=4096,
        description="Shards per distributed table (all co-located, so the same for each); null: "
        "from the volume (a power of two, 32 to 256).",
    )
    colocate: bool = Field(
        True,
        description="Co-locate every distributed table with runs (the same shard for a tenant's "
        "rows in every table). Must stay true: the tenant-scoped foreign keys and the claim's "
        "joins need it.",
    )


class ModelParts(_Section):
    """The runtime model's optional parts (seeds 002-004). All on by default: the common
    multi-agent runtime runs graphs of nodes that call tools, waits for people, and serves
    users in sessions. Switch a part off when the runtime has no such thing; switching
    one on later renders as the next online revision (new tables, nullable columns)."""

    nodes: bool = Field(
        True,
        description="Node executions (one row per run, node and node attempt: (run_id, node_id, "
        "attempt) unique) and the tool calls under them, as recoverable records.",
    )
    approvals: bool = Field(
        True,
        description="Human-in-the-loop approvals as records: who asked and when, who decided, "
        "what and when; requested by the run's lease holder, decided once.",
    )
    sessions: bool = Field(
        True,
        description="user_id and session_id on runs, and the path (tenant, session_id, "
        "created_at DESC): a session's runs, newest first.",
    )
    notes: bool = Field(
        True,
        description="Attempt notes (seed 002): short progress, finding and warning notes an "
        "attempt appends, fenced by its lease, listed per run for the next attempt.",
    )
    details: bool = Field(
        True,
        description="The seeds' descriptive columns, nullable and never indexed: workflow_version, "
        "current_step, error, started_at and span_id on runs; action, provider_reference, trace_id "
        "and span_id on operations; written by claim_run (started_at), fail_attempt (error), "
        "record_step and describe_operation.",
    )


class Roles(_Section):
    owner: Identifier | None = Field(None, description="Owner role; default <schema>_owner.")
    app: Identifier | None = Field(None, description="Workers' role; default <schema>_app.")
    relay: Identifier | None = Field(None, description="Outbox relay's role; default <schema>_relay.")
    readonly: Identifier | None = Field(None, description="Read-only role; default <schema>_readonly.")


class ProfileFields(_Section):
    """The profile's fields; Profile (model.py) adds the check that they agree."""

    profile: Literal[1] = Field(description="Profile format version; always 1.")
    name: Identifier = Field(description="Name of this profile.")
    engine: Engine = Engine()
    schema_name: Identifier = Field("agent", alias="schema", description="PostgreSQL schema.")
    tenancy: Tenancy = Tenancy()
    volume: Volume = Volume()
    retention: Retention = Retention()
    lock_strategy: LockStrategy = Field(LockStrategy.skip_locked, description="How workers claim runs.")
    lease: Lease = Lease()
    outbox: Outbox = Outbox()
    payload: Payload = Payload()
    roles: Roles = Roles()
    hot_state: HotState = HotState()
    distribution: Distribution = Distribution()
    model: ModelParts = ModelParts()

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @property
    def tenant(self) -> str | None:
        return self.tenancy.column

    def role(self, kind: Literal["owner", "app", "relay", "readonly"]) -> str:
        return getattr(self.roles, kind) or f"{self.schema_name}_{kind}"
