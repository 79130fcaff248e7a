"""Contradictions between a profile's keys, each valid on its own: what the profile
promises in one place and breaks in another. The profile's validation refuses the
first one found, at the key that has to change (`retention.checkpoints: ...`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import agentddl.generator.profile.periods as periods
from agentddl.generator.profile.sections import ProfileFields as Profile
from agentddl.generator.profile.units import format_duration

MIN_LEASE_SECONDS = 3  # a heartbeat every third of the lease, at least a second apart


@dataclass(frozen=True)
class Contradiction:
    path: tuple[str, ...]  # the key to change, as the profile file spells it
    message: str
    drivers: tuple[tuple[str, ...], ...] = ()  # other keys that cause it (where to point if path is unset)

    def __str__(self) -> str:
        return f"{'.'.join(self.path)}: {self.message}"


def contradictions(profile: Profile) -> Iterator[Contradiction]:
    yield from _lease(profile)
    yield from _history_outlives_runs(profile)
    yield from _runs_outlive_history(profile)
    yield from _partitions(profile)
    yield from _hot_state(profile)
    yield from _distribution(profile)


def _lease(profile: Profile) -> Iterator[Contradiction]:
    if profile.lease.duration < MIN_LEASE_SECONDS:
        yield Contradiction(
            ("lease", "duration"),
            f"{format_duration(profile.lease.duration)} leaves no room for a heartbeat every third "
            f"of the lease (at least a second apart); lease at least {MIN_LEASE_SECONDS}s",
        )


def run_lifetime_floor(profile: Profile) -> int:
    """How long a run can live without any worker doing anything wrong: every attempt
    dies and its lease runs out before the next claim takes over."""
    return profile.lease.duration * profile.lease.max_attempts


def _history_outlives_runs(profile: Profile) -> Iterator[Contradiction]:
    """A run's history is kept from its creation; the run may still be live when it goes."""
    floor = run_lifetime_floor(profile)
    lease = profile.lease
    for key, what in (("checkpoints", "resume point"), ("events", "history")):
        kept = getattr(profile.retention, key)
        if kept <= floor:
            yield Contradiction(
                ("retention", key),
                f"{format_duration(kept)} is not longer than a run can live: {lease.max_attempts} "
                f"attempts (lease.max_attempts) whose {format_duration(lease.duration)} leases "
                f"(lease.duration) run out are {format_duration(floor)}, and the run's {what} would be "
                f"dropped while it still runs; keep {key} longer than {format_duration(floor)}, or "
                "shorten the lease or the attempts",
                (("lease", "duration"), ("lease", "max_attempts")),
            )


def _runs_outlive_history(profile: Profile) -> Iterator[Contradiction]:
    """Deleting a finished run cascades to its history and messages: runs must be kept at
    least as long as anything under them."""
    retention = profile.retention
    for key in ("events", "checkpoints", "outbox_delivered"):
        kept = getattr(retention, key)
        if retention.runs < kept:
            yield Contradiction(
                ("retention", "runs"),
                f"{format_duration(retention.runs)} is shorter than retention.{key} "
                f"({format_duration(kept)}): deleting a finished run deletes its {key.split('_')[0]} "
                f"with it, so they would not be kept {format_duration(kept)}; keep runs at least "
                f"{format_duration(kept)}",
                (("retention", key),),
            )
            return


def _partitions(profile: Profile) -> Iterator[Contradiction]:
    volume, retention = profile.volume, profile.retention
    tables = (
        ("events", "event", periods.event_rows_per_day(volume.steps_per_second, volume.events_per_step)),
        ("checkpoints", "checkpoint", periods.checkpoint_rows_per_day(volume.steps_per_second)),
    )
    drivers = (("volume", "steps_per_second"), ("volume", "events_per_step"))
    for table, row, rows in tables:
        kept = getattr(retention, table)
        chosen = periods.choose(rows, kept)
        if chosen is None:
            yield Contradiction(
                ("retention", table),
                f"{format_duration(kept)} at ~{rows:,} {row} rows/day (from volume) fits no partition "
                f"period: each must hold at most {periods.TARGET_ROWS_PER_PARTITION:,} rows and at least two "
                "must fit in the window (the finest is a minute); keep it longer or lower the volume",
                drivers,
            )
            continue
        count = periods.partitions_kept(chosen, kept, retention.runway)
        if count > periods.MAX_PARTITIONS:
            yield Contradiction(
                ("retention", table),
                f"{format_duration(kept)} at ~{rows:,} {row} rows/day (from volume) needs "
                f"{chosen.adverb} partitions (at most {periods.TARGET_ROWS_PER_PARTITION:,} rows each), "
                f"~{count:,} of them: more than {periods.MAX_PARTITIONS:,} partitions slow every "
                "query PostgreSQL cannot prune while planning; keep it shorter or lower the volume",
                drivers,
            )


def _hot_state(profile: Profile) -> Iterator[Contradiction]:
    """A holder writes to Redis at least every third of the lease (with each durable
    renewal): a running TTL of a lease or more never expires under a live holder."""
    hot, lease = profile.hot_state, profile.lease
    if hot.store == "redis" and hot.running_ttl < lease.duration:
        yield Contradiction(
            ("hot_state", "running_ttl"),
            f"{format_duration(hot.running_ttl)} is shorter than lease.duration "
            f"({format_duration(lease.duration)}): a live run's projection would expire under its "
            "holder; make it at least the lease",
            (("lease", "duration"),),
        )


def _distribution(profile: Profile) -> Iterator[Contradiction]:
    """What Citus cannot do with the rest of the profile (distribution.engine: citus)."""
    dist = profile.distribution
    if dist.engine != "citus":
        if dist.shard_count is not None:
            yield Contradiction(
                ("distribution", "shard_count"),
                "shards exist only with distribution.engine citus; remove it or distribute",
                (("distribution", "engine"),),
            )
        return
    if profile.tenancy.column is None:
        yield Contradiction(
            ("distribution", "engine"),
            "citus distributes every table by the tenant column and this profile has none "
            "(tenancy.column: null): a single tenant would live on one shard; keep engine none, "
            "or name a tenant column",
            (("tenancy", "column"),),
        )
        return
    yield from _citus_features(profile)


def _citus_features(profile: Profile) -> Iterator[Contradiction]:
    if not profile.distribution.colocate:
        yield Contradiction(
            ("distribution", "colocate"),
            "Citus refuses a foreign key between distributed tables that are not co-located, and "
            "every child table's key references runs by (tenant, run); keep colocate true",
        )
    if profile.retention.partition_manager == "pg_partman":
        yield Contradiction(
            ("retention", "partition_manager"),
            "with distribution.engine citus, partitions are created and dropped by Citus's "
            "create_time_partitions / drop_old_time_partitions (citus.sql), which distribute each "
            "new partition with its parent; use builtin",
            (("distribution", "engine"),),
        )
    if profile.tenancy.row_level_security:
        yield Contradiction(
            ("tenancy", "row_level_security"),
            "the policies read the transaction's tenant from set_config() on the coordinator, and "
            "Citus runs shard queries over its own connections to the workers, carrying SET LOCAL "
            "(citus.propagate_set_commands = 'local') but no set_config() call: on the shards the "
            "tenant would be unset; with citus every query is routed by its tenant instead, so "
            "turn row_level_security off",
            (("distribution", "engine"),),
        )
