"""DDL the table model can't express: roles, grants, policies, triggers, partitions.

Names here come from the validated profile (lower-case identifiers) and are quoted
with quote(); nothing else from input reaches SQL.
"""

from __future__ import annotations

from typing import Literal

import agentddl.generator.model.features as features
from agentddl.generator.model.names import quote as quote  # re-exported: checks quote names with it
from agentddl.generator.model.scope import TRANSITIONS, WORKER_TRANSITIONS, Scope
from agentddl.generator.model.types import SqlBlock, Table
from agentddl.generator.sqltemplate import render_sql

ROLE_KINDS: tuple[Literal["owner", "app", "relay", "readonly"], ...] = ("owner", "app", "relay", "readonly")


def roles(s: Scope) -> SqlBlock:
    # Roles are cluster-wide: create each only if missing, so a second database on the
    # same cluster (or a re-run) does not fail. The installer becomes a member of the owner
    # role it creates (a superuser already acts as every role): the objects are created
    # as, and belong to, the owner role.
    lines = "\n".join(
        f"    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '{s.profile.role(k)}') THEN\n"
        f"        CREATE ROLE {quote(s.profile.role(k))} NOLOGIN;\n{_join_owner(s) if k == 'owner' else ''}"
        "    END IF;"
        for k in ROLE_KINDS
    )
    return SqlBlock("roles", f"DO $$\nBEGIN\n{lines}\nEND\n$$", "group roles: owner, app, relay, read-only")


def _join_owner(s: Scope) -> str:
    return (
        "        IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN\n"
        f"            GRANT {quote(s.profile.role('owner'))} TO CURRENT_USER;\n"
        "        END IF;\n"
    )


def schema(s: Scope) -> SqlBlock:
    name = quote(s.profile.schema_name)
    return SqlBlock(
        "schema",
        f"CREATE SCHEMA {name} AUTHORIZATION {quote(s.profile.role('owner'))}",
        "every object lives in one schema, owned by the owner role",
        drop=f"DROP SCHEMA {name} CASCADE",
    )


def become_owner(s: Scope) -> SqlBlock:
    """From here on the installer acts as the owner role: tables, functions and
    partitions belong to it, so maintenance run by any member of it can manage them, and
    FORCE ROW LEVEL SECURITY holds the owner to the tenant policies too."""
    return SqlBlock(
        "become_owner",
        f"SET ROLE {quote(s.profile.role('owner'))}",
        "the objects below are created as, and owned by, the owner role",
    )


def reset_role(s: Scope) -> SqlBlock:
    return SqlBlock("reset_role", "RESET ROLE", "back to the installing role")


def uuid_v7(s: Scope) -> SqlBlock:
    """Time-ordered ids on every version: random uuids put every insert on a random B-tree
    leaf, and the first touch of a leaf after a checkpoint writes an 8 kB full-page image.
    Before PostgreSQL 18 (which has uuidv7()): 48 bits of Unix milliseconds over
    gen_random_uuid()'s random bits, version nibble 7 (RFC 9562), its variant bits kept.
    On 18 it is uuidv7() under the same name, so a runtime that makes its ids before the
    insert calls one function on every version (and an engine upgrade replaces the body).
    A plain SQL expression with every function qualified: the planner inlines it, and a
    caller's search_path cannot redirect it."""
    name = f"{quote(s.profile.schema_name)}.uuid_v7()"
    why = "time-ordered (version 7) uuid keys: inserts share the rightmost B-tree leaves"
    head = f"CREATE FUNCTION {name} RETURNS uuid\nLANGUAGE sql VOLATILE PARALLEL SAFE\nAS $$\n"
    if features.has(s.version, "uuidv7"):
        return SqlBlock("uuid_v7", f"{head}SELECT pg_catalog.uuidv7()\n$$", why)
    epoch_ms = "(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint"
    body = (
        "SELECT pg_catalog.encode(pg_catalog.set_bit(pg_catalog.set_bit(pg_catalog.overlay(\n"
        "    pg_catalog.uuid_send(pg_catalog.gen_random_uuid()),\n"
        f"    pg_catalog.substr(pg_catalog.int8send({epoch_ms}), 3),\n"
        "    1, 6), 52, 1), 53, 1), 'hex')::uuid\n$$"
    )
    return SqlBlock("uuid_v7", head + body, why)


def event_sequence(s: Scope) -> SqlBlock | None:
    if features.has(s.version, "partitioned_identity"):
        return None
    return SqlBlock(
        "events_event_id_seq",
        f"CREATE SEQUENCE {quote(s.profile.schema_name)}.events_event_id_seq AS bigint",
        "monotonic event ids (identity columns on partitioned tables need PostgreSQL 17)",
    )


def sequence_owner(s: Scope) -> SqlBlock | None:
    if features.has(s.version, "partitioned_identity"):
        return None
    q = quote(s.profile.schema_name)
    return SqlBlock(
        "events_event_id_seq_owner",
        f"ALTER SEQUENCE {q}.events_event_id_seq OWNED BY {q}.events.event_id",
        "the sequence goes away with its column",
    )


def storage(s: Scope, table: Table) -> SqlBlock | None:
    if not table.storage:
        return None
    options = ", ".join(f"{k} = {v}" for k, v in table.storage)
    return SqlBlock(
        f"{table.name}_storage",
        f"ALTER TABLE {quote(s.profile.schema_name)}.{table.name} SET ({options})",
        "hot-updated table: room for HOT updates and eager autovacuum",
    )


def compression(s: Scope, table: Table) -> SqlBlock | None:
    columns = [c for c in table.columns if c.compression]
    if not columns:
        return None
    method = columns[0].compression
    q = quote(s.profile.schema_name)
    actions = ", ".join(f"ALTER COLUMN {c.name} SET COMPRESSION {method}" for c in columns)
    sql = f"ALTER TABLE {q}.{table.name} {actions}"
    if method == "lz4":
        # lz4 needs a server built --with-lz4 (distribution packages are; some embedded
        # builds are not): fall back to the default pglz there, and say so.
        sql = render_sql("compression_lz4", alter=sql, table=table.name)
    return SqlBlock(f"{table.name}_compression", sql, f"payload columns compressed with {method}")


def transition_guard(s: Scope) -> tuple[SqlBlock, ...]:
    """Status changes only along the lifecycle, and only with a new version: enforced by
    the database, so a buggy or stale caller cannot revive a cancelled run."""
    q = quote(s.profile.schema_name)
    pairs = ",\n        ".join(f"('{a}', '{b}')" for a, b in (*WORKER_TRANSITIONS, *TRANSITIONS))
    function = SqlBlock(
        "check_run_transition",
        render_sql("check_run_transition", qschema=q, pairs=pairs),
        "run status changes follow the lifecycle and bump the version",
    )
    trigger = SqlBlock(
        "runs_transition_guard",
        f"CREATE TRIGGER runs_transition_guard BEFORE UPDATE OF status ON {q}.runs\n"
        "FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status)\n"
        f"EXECUTE FUNCTION {q}.check_run_transition()",
        "forbidden transitions (e.g. cancelled -> running) are refused by the database",
    )
    return function, trigger


def append_only(s: Scope, table: Table) -> tuple[SqlBlock, ...]:
    q = quote(s.profile.schema_name)
    function = SqlBlock(
        "forbid_update",
        render_sql("forbid_update", qschema=q),
        "append-only history: UPDATE is refused for every role, owner included",
    )
    trigger = SqlBlock(
        f"{table.name}_append_only",
        f"CREATE TRIGGER {table.name}_append_only BEFORE UPDATE ON {q}.{table.name}\n"
        f"FOR EACH ROW EXECUTE FUNCTION {q}.forbid_update()",
        f"{table.name} rows are never updated",
    )
    return function, trigger
