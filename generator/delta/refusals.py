"""Profile changes with no online recipe, found from the profiles themselves (before any
model is compared): each with the reason and the multi-step plan to make it by hand."""

from __future__ import annotations

from typing import Any

from agentddl.generator.delta.types import Refusal
from agentddl.generator.model.blocks import ROLE_KINDS
from agentddl.generator.profile import Profile
from agentddl.generator.profile.canonical import changed_keys, describe_change

RECORD = (
    "record the profile: `agentddl generate PROFILE --out DIR --dsn DB` renders the revision that "
    "brings what is left to it (none when the database already matches)"
)


def profile_refusals(old: Profile, new: Profile) -> tuple[Refusal, ...]:
    changes = changed_keys(old, new)
    found = [_refusal(key, changes[key], old, new) for key in changes]
    swapped = _swapped_roles(old, new)
    if swapped:
        found.append(swapped)
    return tuple(r for r in found if r is not None)


def _refusal(key: str, values: tuple[Any, Any], old: Profile, new: Profile) -> Refusal | None:
    change = describe_change(key, values)
    if key == "schema":
        return Refusal(key, change, _SCHEMA_WHY, _schema_plan(str(values[0]), str(values[1])))
    if key == "tenancy.column" and values[0] is None:
        return Refusal(key, change, _TENANT_ADDED_WHY, _tenant_added_plan(new))
    if key == "tenancy.column" and values[1] is None:
        return Refusal(key, change, _TENANT_REMOVED_WHY, _TENANT_REMOVED_PLAN)
    if key == "tenancy.column":
        return Refusal(
            key, change, "renaming a column breaks every running query that names it", _rename_plan(values)
        )
    if key == "tenancy.type" and old.tenant and new.tenant:
        return Refusal(key, change, _TYPE_WHY, _type_plan(new))
    if key == "retention.partition_manager":
        return Refusal(key, change, _MANAGER_WHY, _manager_plan(str(values[1])))
    if key in ("distribution.engine", "distribution.shard_count") and old.distribution.engine == "citus":
        return Refusal(key, change, _DISTRIBUTED_WHY, _DISTRIBUTED_PLAN)
    if key == "distribution.engine":
        return Refusal(key, change, _DISTRIBUTE_WHY, _distribute_plan(new))
    return None


_DISTRIBUTE_WHY = (
    "create_distributed_table copies every existing row to the shards and blocks writes to each table "
    "while it does; it is a move to another cluster, not a schema change"
)


def _distribute_plan(new: Profile) -> tuple[str, ...]:
    return (
        "expand: set up the Citus cluster (coordinator and workers, CREATE EXTENSION citus), generate this "
        "profile into a fresh folder and apply its first revision there (schema.sql, then citus.sql: "
        "empty tables, distributed at once)",
        f"switch: deploy workers that name their tenant on every query (claim_run({new.tenancy.column}, ...))"
        " against the old server first (the tenant-scoped queries run on plain PostgreSQL too)",
        "move: copy the data tenant by tenant (or with logical replication into the coordinator), then "
        "point the application at the coordinator",
        "contract: retire the old server; " + RECORD,
    )


_DISTRIBUTED_WHY = (
    "undistributing or re-sharding rewrites every distributed table "
    "(undistribute_table, alter_distributed_table), holding locks for as long as the copy takes"
)
_DISTRIBUTED_PLAN = (
    "re-shard: `SELECT alter_distributed_table('<schema>.runs', shard_count := N, "
    "cascade_to_colocated := true)` in a maintenance window (it copies every co-located table), "
    "or leave the count and add nodes instead (citus_rebalance_start)",
    RECORD,
)


_SCHEMA_WHY = (
    "every query, grant, function body and scheduled job names the schema: a rename breaks them at once"
)


def _schema_plan(old: str, new: str) -> tuple[str, ...]:
    return (
        f"expand: deploy workers, the relay and jobs that find tables through search_path "
        f"(`SET search_path = {new}, {old}`) instead of `{old}.`-qualified names",
        f"switch: `ALTER SCHEMA {old} RENAME TO {new}` under a short lock_timeout (catalog only), then "
        "re-create the functions (their bodies name the schema) and the maintenance job",
        f"contract: drop {old} from search_path",
        RECORD,
    )


_TENANT_ADDED_WHY = (
    "every table gains a key column and every primary key, foreign key and index gains it first: "
    "PostgreSQL rebuilds a partitioned table's primary key under a lock"
)


def _tenant_added_plan(new: Profile) -> tuple[str, ...]:
    column, kind = new.tenancy.column, new.tenancy.type
    return (
        f"expand: create the tenants table with the one tenant you have, and add {column} {kind} NOT NULL "
        f"DEFAULT '<that tenant>' to every table (a constant default: no rewrite since PostgreSQL 11); "
        f"deploy code that writes {column}",
        "backfill: none for existing rows (the default is their tenant); new tenants' rows carry their own",
        f"switch: build the {column}-first unique indexes CONCURRENTLY (partitioned tables: per partition, "
        "then ATTACH), add the composite foreign keys NOT VALID and VALIDATE them, swap each primary key "
        "in a short window (USING INDEX on plain tables; partitioned tables: a new table filled in batches)",
        f"contract: drop the old keys and indexes and the {column} default; " + RECORD,
    )


_TENANT_REMOVED_WHY = (
    "every key loses its first column, and rows of different tenants may collide on the shorter keys"
)
_TENANT_REMOVED_PLAN = (
    "expand: check that no two tenants share a key (run_id, idempotency_key, ...): the shorter keys "
    "must be unique",
    "switch: build the shorter unique indexes CONCURRENTLY, swap the keys and foreign keys (NOT VALID, then "
    "VALIDATE); deploy code that no longer writes the tenant column",
    "backfill: nothing",
    "contract: drop the tenant column (instant, no rewrite) and the tenants table; " + RECORD,
)


def _rename_plan(values: tuple[Any, Any]) -> tuple[str, ...]:
    old, new = values
    return (
        f"expand: add {new} beside {old} (nullable) with a trigger copying {old} into it on write",
        f"backfill: copy {old} into {new} in batches of a few thousand rows per transaction",
        f"switch: build {new}'s keys and indexes CONCURRENTLY, constraints NOT VALID then VALIDATE; "
        f"deploy code that uses {new}",
        f"contract: drop {old} and the trigger; " + RECORD,
    )


_TYPE_WHY = (
    "changing a key column's type rewrites every table and rebuilds every index under an "
    "ACCESS EXCLUSIVE lock"
)


def _type_plan(new: Profile) -> tuple[str, ...]:
    column, kind = new.tenancy.column, new.tenancy.type
    return (
        f"expand: add {column}_new {kind} beside {column}, with a trigger converting on write",
        f"backfill: convert {column} into {column}_new in batches of a few thousand rows per transaction",
        f"switch: build {column}_new's keys and indexes CONCURRENTLY, foreign keys NOT VALID then "
        f"VALIDATE; deploy code that reads and writes {column}_new",
        f"contract: drop {column} and the trigger, rename {column}_new in a short window; " + RECORD,
    )


_MANAGER_WHY = (
    "pg_partman and the generated maintain_partitions() keep separate records of the same partitions: "
    "a hand-over needs pg_partman to adopt (or give back) the existing ones"
)


def _manager_plan(new: str) -> tuple[str, ...]:
    if new == "pg_partman":
        return (
            "expand: install pg_partman; stop the job that calls maintain_partitions()",
            "switch: partman.create_parent() for each partitioned table, starting after the newest "
            "existing partition (its premake covers the runway)",
            "backfill: nothing (rows stay in their partitions); drop the older partitions by hand "
            "as they expire",
            "contract: drop maintain_partitions(); " + RECORD,
        )
    return (
        "expand: create maintain_partitions() (from a fresh `agentddl generate` of the profile's schema.sql)",
        "switch: turn pg_partman's maintenance off for the tables, schedule maintain_partitions()",
        "backfill: nothing (rows stay in their partitions)",
        "contract: delete the tables' rows from partman.part_config; " + RECORD,
    )


def _swapped_roles(old: Profile, new: Profile) -> Refusal | None:
    for kind in ROLE_KINDS:
        moved = [other for other in ROLE_KINDS if other != kind and old.role(other) == new.role(kind)]
        if moved and old.role(kind) != new.role(kind):
            return Refusal(
                f"roles.{kind}",
                f"roles.{kind}: {old.role(kind)} -> {new.role(kind)}",
                f"{new.role(kind)} was the {moved[0]} role: its grants and policies would be revoked "
                "from the role that keeps them",
                (
                    f"expand: rename through a name no role uses (first roles.{moved[0]} to a new name)",
                    "switch: generate and apply that revision",
                    "backfill: nothing",
                    f"contract: then give roles.{kind} its new name and generate again",
                ),
            )
    return None
