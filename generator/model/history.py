"""The per-run history tables, partitioned by the owning run's immutable creation time:
checkpoints and events. Their primary keys include run_created_at, and their FK pins it
to the run's own created_at, so (run, seq) stays truly unique across partitions."""

from __future__ import annotations

import agentddl.generator.model.features as features
import agentddl.generator.model.tuning as tuning
from agentddl.generator.model.names import quote
from agentddl.generator.model.scope import Scope, size_check
from agentddl.generator.model.types import Check, Column, ForeignKey, Index, Partitioning, SqlBlock, Table
from agentddl.generator.sqltemplate import render_sql

SECRET_KEYS = ("api_key", "authorization", "password", "secret", "access_token", "prompt")


def _run_fk(s: Scope, table: str) -> ForeignKey:
    why = f"{table} rows belong to a run of the same tenant, in that run's partition"
    return s.run_fk(table, why, partitioned=True)


def checkpoint_parent_guard(s: Scope) -> tuple[SqlBlock, ...]:
    """A checkpoint's parent exists in the same run, checked on insert. Parents go only
    with their whole run (cascade, or the partition holding the run's history)."""
    q = quote(s.profile.schema_name)
    same = " AND ".join(f"p.{c} = NEW.{c}" for c in s.keyed("run_id", "run_created_at"))
    function = SqlBlock(
        "check_checkpoint_parent",
        render_sql("check_checkpoint_parent", qschema=q, same_run=same),
        "a checkpoint's parent must exist in the same run",
    )
    trigger = SqlBlock(
        "checkpoint_parent_guard",
        f"CREATE TRIGGER checkpoints_parent_guard BEFORE INSERT OR UPDATE OF parent_seq\n"
        f"ON {q}.checkpoints\nFOR EACH ROW EXECUTE FUNCTION {q}.check_checkpoint_parent()",
        "the parent checkpoint exists in the same run (a trigger, so expired partitions "
        "can still be detached)",
    )
    return function, trigger


def _partitioning(rows_per_day: int, retention: int, runway: int, what: str) -> Partitioning:
    period = tuning.granularity(rows_per_day, retention)
    why = (
        f"~{rows_per_day:,} {what} rows/day; {period.adverb} partitions hold ~"
        f"{period.rows(rows_per_day):,} rows each (under {tuning.TARGET_ROWS_PER_PARTITION:,}) "
        "and expire by dropping a partition"
    )
    return Partitioning("run_created_at", period.name, retention, runway, why)


def checkpoints(s: Scope) -> Table:
    p = s.profile
    return Table(
        name="checkpoints",
        comment="Resumable snapshots of a run; large payloads live out of line (payload_ref).",
        columns=_checkpoints_columns(s),
        primary_key=s.keyed("run_id", "run_created_at", "seq"),
        checks=_checkpoints_checks(s),
        foreign_keys=(
            # The parent is checked by checkpoint_parent_guard, not a self-referencing FK:
            # PostgreSQL refuses to detach a partition that rows of the partitioned table
            # still reference, and a run's chain lives in one partition, so such an FK
            # would stop every expired checkpoints partition from being dropped.
            _run_fk(s, "checkpoints"),
        ),
        partitioning=_partitioning(
            tuning.checkpoint_rows_per_day(p),
            p.retention.checkpoints,
            p.retention.runway,
            "checkpoint",
        ),
    )


def _checkpoints_columns(s: Scope) -> tuple[Column, ...]:
    p = s.profile
    return (
        *s.tenant_columns(),
        Column("run_id", "uuid"),
        Column("run_created_at", "timestamptz", comment="Partition key: the run's created_at."),
        Column("seq", "integer", comment="Per-run sequence, 1, 2, ..."),
        Column("parent_seq", "integer", nullable=True, comment="The checkpoint this one follows."),
        Column("fencing_token", "bigint", comment="Fencing token of the attempt that wrote it."),
        Column("state_schema_version", "integer", comment="Version of the state's shape."),
        Column("next_nodes", "text[]", default="'{}'::text[]", comment="Nodes to run next."),
        Column("completed_nodes", "text[]", default="'{}'::text[]", comment="Nodes done."),
        Column(
            "metadata",
            "jsonb",
            nullable=True,
            comment="Pending interrupt or approval, code version, config reference; bounded.",
        ),
        Column(
            "payload",
            "jsonb",
            nullable=True,
            compression=s.compression,
            comment=f"Inline state, at most {p.payload.inline_limit} bytes.",
        ),
        Column("payload_ref", "text", nullable=True, comment="URI of an out-of-line payload."),
        Column("payload_bytes", "integer", comment="Size of the payload, inline or not."),
        Column("payload_sha256", "bytea", comment="Integrity hash of the payload."),
        Column("created_at", "timestamptz", default="now()"),
    )


def _checkpoints_checks(s: Scope) -> tuple[Check, ...]:
    p = s.profile
    return (
        Check(
            "checkpoints_seq_check",
            "seq > 0 AND (parent_seq IS NULL OR parent_seq < seq)",
            "a checkpoint follows an earlier one",
        ),
        Check(
            "checkpoints_payload_place_check",
            "(payload IS NULL) <> (payload_ref IS NULL)",
            "the payload is either inline or out of line, never both or neither",
        ),
        Check(
            "checkpoints_inline_limit_check",
            f"payload IS NULL OR payload_bytes <= {p.payload.inline_limit}",
            "inline payloads stay under the inline limit",
        ),
        Check("checkpoints_payload_bytes_check", "payload_bytes >= 0", "sizes are not negative"),
        Check("checkpoints_sha256_check", "octet_length(payload_sha256) = 32", "a sha256 hash"),
        Check("checkpoints_state_version_check", "state_schema_version > 0", "versions start at 1"),
        size_check(
            "checkpoints",
            "metadata",
            p.payload.event_limit,
            "checkpoint metadata stay bounded like events",
        ),
    )


def events(s: Scope) -> Table:
    p = s.profile
    rows = tuning.event_rows_per_day(p)
    method = tuning.time_index_method(rows)
    return Table(
        name="events",
        comment="Append-only run history. Never updated; expires by dropping partitions.",
        columns=_events_columns(s),
        primary_key=s.keyed("run_id", "run_created_at", "seq"),
        checks=_events_checks(s),
        foreign_keys=(_run_fk(s, "events"),),
        indexes=(
            Index(
                "events_since_idx",
                "events",
                s.keyed("event_id"),
                serves=("events_since",),
                why="delta sync: a tenant's events after a known id",
            ),
            Index(
                "events_created_at_idx",
                "events",
                ("created_at",),
                method=method,
                serves=("events_in_window",),
                why=f"time-window export; {method.upper()} since ~{rows:,} rows/day arrive in time order",
            ),
        ),
        partitioning=_partitioning(rows, p.retention.events, p.retention.runway, "event"),
        append_only=True,
    )


def _events_columns(s: Scope) -> tuple[Column, ...]:
    p = s.profile
    identity = features.has(s.version, "partitioned_identity")
    return (
        Column(
            "event_id",
            "bigint",
            identity=identity,
            default=None if identity else f"nextval('{s.profile.schema_name}.events_event_id_seq'::regclass)",
            comment="Monotonic id for 'changes since' reads.",
        ),
        *s.tenant_columns(),
        Column("run_id", "uuid"),
        Column("run_created_at", "timestamptz", comment="Partition key: the run's created_at."),
        Column("seq", "integer", comment="Per-run sequence, 1, 2, ..."),
        Column("kind", "text", comment="Event type, e.g. step.started."),
        Column(
            "actor",
            "text",
            comment="Who caused it: system, agent:<id>, user:<id>, tool:<name>.",
        ),
        Column("policy_version", "text", nullable=True, comment="Policy in force when it happened."),
        Column(
            "payload",
            "jsonb",
            default="'{}'::jsonb",
            compression=s.compression,
            comment=f"Redacted, at most {p.payload.event_limit} bytes.",
        ),
        Column("created_at", "timestamptz", default="now()"),
    )


def _events_checks(s: Scope) -> tuple[Check, ...]:
    p = s.profile
    secrets = ", ".join(f"'{k}'" for k in SECRET_KEYS)
    return (
        Check("events_seq_check", "seq > 0", "per-run sequence starts at 1"),
        Check(
            "events_kind_check",
            "kind ~ '^[a-z][a-z0-9_.]{0,99}$'",
            "event kinds are short names",
        ),
        Check(
            "events_actor_check",
            "actor ~ '^(system|agent|user|tool)(:[^[:space:]]{1,200})?$'",
            "every event names its actor",
        ),
        size_check(
            "events",
            "payload",
            p.payload.event_limit,
            "event payloads are size-bounded: no full prompts or raw provider responses",
        ),
        Check(
            "events_payload_secrets_check",
            f"NOT (payload ?| ARRAY[{secrets}])",
            "no secrets or full prompts as top-level payload keys",
        ),
    )
