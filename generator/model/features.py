"""Which built-in PostgreSQL features a target major version offers.

Every gate the generator uses is listed here, with the version it starts at, so the
list in PLAN.md and the behaviour never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    key: str
    since: int
    description: str
    fallback: str


FEATURES = (
    Feature(
        "uuidv7",
        18,
        "uuidv7() time-ordered UUID defaults",
        "the schema's uuid_v7() SQL function (time-ordered, over gen_random_uuid())",
    ),
    Feature(
        "hot_with_brin",
        16,
        "HOT updates that change only a BRIN-indexed column (runs.finished_at's retention index)",
        "a partial B-tree on finished runs: the completion's update of runs is not HOT",
    ),
    Feature(
        "partitioned_identity",
        17,
        "identity column on a partitioned table (events.event_id)",
        "a sequence owned by the column with a nextval() default",
    ),
    Feature(
        "nulls_not_distinct",
        15,
        "UNIQUE NULLS NOT DISTINCT index for run keys of root runs",
        "a unique expression index over COALESCE(parent_run_id, nil UUID)",
    ),
    Feature("column_compression", 14, "column COMPRESSION lz4 on payload columns", "pglz"),
    Feature(
        "detach_concurrently",
        14,
        "ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY in the retention runbook",
        "plain DETACH under a short lock_timeout",
    ),
)


def has(version: int, key: str) -> bool:
    feature = next(f for f in FEATURES if f.key == key)
    return version >= feature.since


def used(version: int) -> tuple[str, ...]:
    """Human-readable lines: each feature and whether this version uses it or its fallback."""
    return tuple(
        f"{f.description} (PostgreSQL {f.since}+)"
        if version >= f.since
        else f"{f.fallback} instead of {f.description} (needs {f.since}+)"
        for f in FEATURES
    )
