"""Scale-out decisions (distribution.engine: citus): whether the tables are distributed by
the tenant, which table Citus gets how, and how many shards. The model exposes them
(SchemaModel.is_distributed, .distributed_tables, .reference_tables, .shard_count); the
builders, the renderers and the checks read them from there."""

from __future__ import annotations

from agentddl.generator.profile.sections import ProfileFields

# Shard count from the volume: a worker node is assumed to carry about this many steps/s
# (an assumption, not a measurement: no Citus server ran here), and each node about
# SHARDS_PER_NODE shards so that adding nodes has shards to move.
STEPS_PER_NODE = 1_000
SHARDS_PER_NODE = 8
MIN_SHARDS, MAX_SHARDS = 32, 256


def is_distributed(profile: ProfileFields) -> bool:
    """Every tenant table hash-distributed by the tenant column with Citus: the one place
    this is decided (Citus needs the tenant column to distribute by)."""
    return profile.distribution.engine == "citus" and profile.tenancy.column is not None


def claims_within_tenant(profile: ProfileFields) -> bool:
    """A worker claims within one tenant: with row-level security (it sees one tenant's
    rows) or distributed tables (a claim must run on one shard)."""
    return bool(profile.tenancy.column and (profile.tenancy.row_level_security or is_distributed(profile)))


def nodes_for_volume(profile: ProfileFields) -> int:
    return max(1, -(-profile.volume.steps_per_second // STEPS_PER_NODE))


def shard_count(profile: ProfileFields) -> int:
    """The profile's distribution.shard_count, else a power of two from the volume."""
    chosen = profile.distribution.shard_count
    if chosen is not None:
        return chosen
    wanted = nodes_for_volume(profile) * SHARDS_PER_NODE
    count = MIN_SHARDS
    while count < wanted and count < MAX_SHARDS:
        count *= 2
    return count
