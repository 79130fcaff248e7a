"""The workloads bench times: the durable-commit floors and the profile's hot paths.

An *operation* is what one client does once, in the path's own commits: the floor's
one commit (UPDATE one row by key, INSERT one row), the two-commit floor's two, a
claim and its completion (two), a batched claim and completion of `CLAIM_BATCH` runs
(two), a full step (claim; an event and a checkpoint; complete: three). Ratios divide a
path's operations per second by the floor's, measured right before and after it; `per
commit` multiplies by the path's commits, so a path that needs three commits is compared
with three floor commits.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Workload:
    name: str  # stable key (JSON, --path)
    title: str  # what the tables show
    about: str  # what one operation is
    commits: int  # commits per operation
    queries: tuple[str, ...] = ()  # the named queries it runs (all must exist in queries.sql)
    claims_per_op: int = 0  # queued runs each operation takes
    claims_to_prepare: int = 0  # runs each client claims before timing starts (heartbeat, ...)
    two_commit_floor: bool = False  # also compared with the two-commit floor

    @property
    def is_floor(self) -> bool:
        return self.name in (FLOOR.name, FLOOR2.name)


FLOOR = Workload("floor", "floor: 1 commit", "UPDATE one row by key, INSERT one row, COMMIT", 1)
FLOOR2 = Workload("floor2", "floor: 2 commits", "the floor's commit twice", 2)

CLAIM = ("claim_run", "complete_attempt")
CLAIM_BATCH = 10  # runs a batched claim takes: a worker with ten slots
HOT_PATHS = (
    Workload(
        "claim_complete",
        "claim + complete",
        "claim_run, COMMIT; complete_attempt, COMMIT",
        2,
        CLAIM,
        claims_per_op=1,
        two_commit_floor=True,
    ),
    Workload(
        "claim_batch",
        f"batch: claim + complete {CLAIM_BATCH}",
        f"claim_runs of {CLAIM_BATCH}, COMMIT; complete_attempts of them, COMMIT "
        f"(per run: divide by {CLAIM_BATCH})",
        2,
        ("claim_runs", "complete_attempts"),
        claims_per_op=CLAIM_BATCH,
    ),
    Workload(
        "step",
        "full step",
        "claim_run, COMMIT; append_event + save_checkpoint (the profile's checkpoint size), COMMIT; "
        "complete_attempt, COMMIT",
        3,
        (*CLAIM, "append_event", "save_checkpoint"),
        claims_per_op=1,
    ),
    Workload(
        "heartbeat",
        "heartbeat",
        "heartbeat on a claimed run, COMMIT",
        1,
        (*CLAIM, "heartbeat"),
        claims_to_prepare=1,
    ),
    Workload(
        "checkpoint_save",
        "checkpoint save",
        "save_checkpoint (the profile's checkpoint size) on a claimed run, COMMIT",
        1,
        (*CLAIM, "save_checkpoint"),
        claims_to_prepare=1,
    ),
    Workload(
        "checkpoint_read",
        "latest checkpoint",
        "latest_checkpoint of a run of --read-depth (1,000) checkpoints, COMMIT (read-only)",
        1,
        (*CLAIM, "save_checkpoint", "latest_checkpoint"),
        claims_to_prepare=1,
    ),
    Workload(
        "sweep",
        "lease sweep",
        "expire_leases with no lease due (housekeeping: the claim takes lapsed leases over), COMMIT",
        1,
        ("expire_leases",),
    ),
)
WORKLOADS = {w.name: w for w in (FLOOR, FLOOR2, *HOT_PATHS)}


def hot_paths(available: frozenset[str], wanted: tuple[str, ...] = ()) -> list[Workload]:
    """The hot paths to measure, in order: `wanted` (every one, when empty) whose queries
    the profile's queries.sql has (a lease sweep exists only where the profile has one)."""
    chosen = [w for w in HOT_PATHS if not wanted or w.name in wanted]
    return [w for w in chosen if set(w.queries) <= available]


def segments(paths: list[Workload]) -> list[Workload]:
    """The measured segments in order: the floor, then each path followed by the floor
    again (so every path has a floor right before and right after it); a path compared
    with the two-commit floor is also wrapped in it."""
    order = [FLOOR]
    for path in paths:
        wrap = [FLOOR2] if path.two_commit_floor else []
        order += [*wrap, path, *wrap, FLOOR]
    return order
