"""Which table Citus gets how, and how many shards: the one place both citus.sql and
PLAN.md read it from."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.model.types import Table

CITUS_FILE = "citus.sql"
ANCHOR = "runs"  # first table of the co-location group; every other distributed table joins it
# Shard count from the volume: a worker node is assumed to carry about this many steps/s
# (an assumption, not a measurement: no Citus server ran here), and each node about
# SHARDS_PER_NODE shards so that adding nodes has shards to move.
STEPS_PER_NODE = 1_000
SHARDS_PER_NODE = 8
MIN_SHARDS, MAX_SHARDS = 32, 256


def is_distributed(model: SchemaModel) -> bool:
    profile = model.profile
    return profile.distribution.engine == "citus" and profile.tenancy.column is not None


def distributed_tables(model: SchemaModel) -> tuple[Table, ...]:
    """Tables that carry the tenant column, in creation order (parents before children),
    except the tenants table itself: hash-distributed by the tenant column."""
    tenant = model.profile.tenancy.column
    return tuple(t for t in model.tables if t.name != "tenants" and any(c.name == tenant for c in t.columns))


def reference_tables(model: SchemaModel) -> tuple[Table, ...]:
    """Everything else (the tenants table, any table without the tenant column): a full
    copy on every node, so any shard can join it and reference it by foreign key."""
    distributed = {t.name for t in distributed_tables(model)}
    return tuple(t for t in model.tables if t.name not in distributed)


def nodes_for_volume(model: SchemaModel) -> int:
    return max(1, -(-model.profile.volume.steps_per_second // STEPS_PER_NODE))


def shard_count(model: SchemaModel) -> int:
    """The profile's distribution.shard_count, else a power of two from the volume."""
    chosen = model.profile.distribution.shard_count
    if chosen is not None:
        return chosen
    wanted = nodes_for_volume(model) * SHARDS_PER_NODE
    count = MIN_SHARDS
    while count < wanted and count < MAX_SHARDS:
        count *= 2
    return count
