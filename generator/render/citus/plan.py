"""PLAN.md's Scale-out section (distribution: citus): what is distributed and how, the
shard count from the volume, the tenant-scoped paths, rebalancing and what a tenant move
costs, the coordinator's role, and what the static proof covers and what it does not."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.model.distribution import SHARDS_PER_NODE, STEPS_PER_NODE
from agentddl.generator.render import figures as fig
from agentddl.generator.render import markdown as md
from agentddl.generator.render.citus.layout import ANCHOR

DAY = 86_400


def scale_out_section(model: SchemaModel, number: int) -> str | None:
    if not model.is_distributed:
        return None
    return "\n\n".join(
        [
            f"## {number}. Scale-out (Citus)",
            _layout(model),
            _shards(model),
            _paths(model),
            _rebalancing(model),
            _coordinator(model),
            _constrained(model),
            _proof(),
        ]
    )


def _layout(model: SchemaModel) -> str:
    tenant = model.tenant
    rows = [
        [
            t.name,
            f"distributed by `{tenant}`",
            "opens the group" if t.name == ANCHOR else f"`{ANCHOR}`",
            "yes" if t.partitioning else "no",
        ]
        for t in model.distributed_tables
    ]
    rows += [[t.name, "reference (a copy on every node)", "-", "no"] for t in model.reference_tables]
    return (
        "`citus.sql` (apply it after `schema.sql`, on the coordinator, in one transaction; the "
        "Alembic revision runs it as its last step) distributes the schema by tenant:\n\n"
        + md.table(["table", "placement", "co-located with", "partitioned"], rows)
        + "\n\nEvery key and every foreign key of a distributed table leads with the tenant column, "
        "so a tenant's rows of every table sit on one shard group, and each foreign key is checked "
        "on one node."
    )


def _shards(model: SchemaModel) -> str:
    p = model.profile
    count = model.shard_count
    events = fig.event_rows_per_day(model) * p.retention.events // DAY
    checkpoints = fig.checkpoint_rows_per_day(model) * p.retention.checkpoints // DAY
    how = (
        f"`distribution.shard_count: {count}` (the profile's)"
        if model.shard_count_chosen
        else f"{md.number(p.volume.steps_per_second)} steps/s at peak / ~{md.number(STEPS_PER_NODE)} steps/s "
        f"per worker node (an assumption: nothing was measured on Citus here) = {model.nodes_for_volume} "
        f"node(s), x {SHARDS_PER_NODE} shards per node so that added nodes have shards to take, as a "
        f"power of two between 32 and 256: **{count}**"
    )
    return (
        f"**Shard count.** {how}. Co-located tables share it (`SET LOCAL citus.shard_count`). "
        f"Retained rows per shard, evenly spread: ~{md.number(events // count)} events and "
        f"~{md.number(checkpoints // count)} checkpoints (one tenant's rows all land in one shard: "
        "a tenant bigger than a shard's share is the case for tenant isolation, below). The count is "
        "fixed once distributed: changing it rewrites every table (`alter_distributed_table`)."
    )


def _paths(model: SchemaModel) -> str:
    tenant = model.tenant
    return md.bullets(
        [
            f"Every worker, relay and retention query names its tenant (`{tenant} = :{tenant}`), so "
            "Citus sends it to one shard. `claim_run` takes the tenant: a worker serves a set of "
            "tenants and claims in each in turn, one single-shard statement per tenant (an empty "
            "tenant costs one probe of the live set's index `run_queue_visible_idx`, which leads "
            "with the tenant there). The single-server claim (`FOR UPDATE SKIP LOCKED` across tenants) is a "
            "multi-shard `FOR UPDATE`, which Citus refuses.",
            "`expire_leases`, `relay_claim`, `purge_finished_runs` and `purge_outbox` take the "
            "tenant too: run them per tenant (a relay serves a set of tenants like a worker). The "
            "operator's reports (`health_*`, `dead_letters`) read every shard: `verify --citus` "
            "lists them as multi-shard (warnings).",
            "`expire_leases`, `fail_attempt`, `transition_run` and `fail_delivery` have a Citus "
            "form: the clock is read once in the FROM clause (`clock.at`), because Citus refuses "
            "`now()` inside CASE and `now()` plus a backoff computed from the row in an UPDATE. "
            "`maintain_partitions` calls `maintain_time_partitions()` (Citus's "
            "`create_time_partitions` / `drop_old_time_partitions`).",
            "Lock strategies: `agentddl prove` holds for all four with these queries on plain "
            "PostgreSQL. On Citus, `skip_locked` is a `FOR UPDATE` within one shard (supported in "
            "router queries), `lease` an `INSERT ... ON CONFLICT` within one shard, `optimistic` a "
            "compare-and-set; `advisory` takes its lock on the worker that holds the tenant's shard "
            "(advisory locks are per node, enough while a tenant's rows are on one node), but its "
            "lock is a VOLATILE function in a SELECT CTE of an UPDATE: Citus documents the refusal "
            "of VOLATILE functions in a modification's own WHERE, not this case; prefer `skip_locked`.",
        ]
    )


def _rebalancing(model: SchemaModel) -> str:
    schema = model.schema
    return (
        "**Rebalancing and tenant moves.** Add workers with `citus_add_node`, then `SELECT "
        "citus_rebalance_start();` moves shard groups (co-located shards move together) in the "
        "background with logical replication; `citus_rebalance_status()` follows it. Writes to a "
        "moving shard group pause briefly at its cut-over; reads go on. A tenant moves only with "
        f"its shard group: about 1/{model.shard_count} of the retained data per group. To move one "
        f"large tenant alone, `isolate_tenant_to_new_shard('{schema}.{ANCHOR}', '<tenant>', "
        "cascade_option => 'CASCADE')` gives it shards of its own (a split: its rows are copied "
        "once), then `citus_move_shard_placement` moves them: cost = that tenant's bytes, "
        "copied while writes go on, blocked only at the cut-over."
    )


def _coordinator(model: SchemaModel) -> str:
    return (
        "**The coordinator.** It holds the metadata and the reference table `tenants`, plans every "
        "statement and forwards a tenant's statement to the worker that holds its shard; the data "
        "and the row locks live on the workers. The application's pool connects to the coordinator "
        "(or to any node, with Citus's query-from-any-node). Schema changes (`agentddl generate`'s "
        "next revisions) and the maintenance jobs (`maintain_time_partitions`, the retention "
        "batches per tenant) run on the coordinator, which propagates them. `events.event_id` "
        "comes from a bigint sequence each node draws from its own range: ids stay unique, but "
        "increase only per node: `events_since` (delta sync by id) is ordered while a tenant's "
        "writes go through one node; readers that must not miss an event after a shard move or "
        "from several entry nodes page by `(run_id, seq)` (`run_events`)."
    )


def _constrained(model: SchemaModel) -> str:
    return md.bullets(
        [
            "Triggers: `citus.sql` sets `citus.enable_unsafe_triggers` so the guards stay on the "
            "distributed tables. `events_append_only` and `runs_transition_guard` read only their "
            "row. `checkpoints_parent_guard` reads other checkpoints of the same run: on a shard it "
            "queries the distributed table by name, a query from within a shard that Citus does not "
            "coordinate (not proven).",
            "Row-level security is refused with Citus (the tenant set by `set_config()` on the "
            "coordinator does not reach the shards); routing by tenant keeps each query to its "
            "tenant instead.",
            "pg_partman is refused with Citus: `create_time_partitions` distributes each new "
            "partition with its parent. The builtin `maintain_partitions` stays in `schema.sql` "
            "(plain PostgreSQL) and is not used.",
            "No SECURITY DEFINER: `maintain_time_partitions` runs as its caller (a member of the owner "
            "role) on the coordinator, which propagates the partitions' DDL to the shards.",
            f"PostgreSQL {model.profile.engine.version} needs a Citus release that supports it (Citus's "
            "changelog: 12.1 for 14-16, 13.0 for 15-17, 14.0 for 16-18).",
        ]
    )


def _proof() -> str:
    return (
        "**What is proven, and what is not.** No Citus server ran here (none can be installed on "
        "these machines). Proven statically by `agentddl verify --citus` (pglast, on the generated "
        "files and any `--queries` file): every primary key, unique constraint and unique index of "
        "a distributed table holds the tenant column; every foreign key between distributed tables "
        "is co-located and pairs the tenant columns; no reference table references a distributed "
        "one; every named query confines each distributed table to the tenant it names, or is "
        "reported multi-shard; no modification uses a function Citus refuses (by a table of known "
        "function volatilities). Proven on plain PostgreSQL by tests: `schema.sql` applies; "
        "`agentddl prove` holds with the tenant-scoped queries for every lock strategy. Not proven: "
        "that Citus plans each statement as a single router query (a statement confined through a "
        "CTE may be planned as a subplan plus a step on one tenant's rows), that `citus.sql` runs as "
        "written (function signatures and settings follow Citus's documentation for 11.0 and later), "
        "the trigger and sequence behaviour above, and every throughput figure."
    )
