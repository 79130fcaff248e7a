"""How many rows of what to seed for a profile: a pure, deterministic function.

The proportions come from the profile's own volume and retention, scaled so the events
table gets exactly the asked number of rows:

- a run makes `steps_per_second * 86400 / runs_per_day` steps, each appending
  `events_per_step` events and one checkpoint, so events per run follow from the profile
  (spread 0.25x..2.5x around that mean: some runs are short, some long);
- only runs created inside the *history window* still have events and checkpoints (older
  partitions expired); the window is the events retention (hours or minutes when the
  profile keeps events that briefly), capped at WINDOW_CAP_DAYS so a seed touches few
  partitions. Checkpoints exist only for runs younger than their own retention, outbox
  rows only for runs younger than the delivered-outbox retention;
- runs as a whole are kept `retention.runs`, so older, finished runs without history
  outnumber the window's runs by `runs retention / window` (the steady state, at most
  OLD_RUNS_PER_WINDOW_RUN to one);
- tenants have Zipf-like sizes (log-uniform draw: the biggest tenant holds ~ln 2 / ln(T+1)
  of the runs); a run tree (a root and its children) belongs to one tenant;
- most runs are finished; the newest few are the hot set: queued (due or backing off),
  running (with an active attempt, a few with an expired lease) and waiting.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from agentddl.generator.model import SchemaModel
from agentddl.generator.model.live import LIVE_STATES

RunStatus = Literal["queued", "running", "waiting", "succeeded", "failed", "cancelled"]
FINISHED: tuple[RunStatus, ...] = ("succeeded", "failed", "cancelled")
DAY = 86_400
PART_TABLES = ("node_executions", "tool_calls", "approvals", "attempt_notes")  # profile model:
WINDOW_CAP_DAYS = 14
OLD_RUNS_PER_WINDOW_RUN = 365  # a window of hours under a year of runs: not 8,760 to one
TREE_SIZE = 5  # run i with i % TREE_SIZE == TREE_SIZE - 1 is a child of the tree's root
HOT_SHARE = {"queued": 0.02, "running": 0.01, "waiting": 0.005}  # of the window's runs
HOT_MINIMUM = {"queued": 3, "running": 3, "waiting": 1}
SEED = 20_260_601


@dataclass(frozen=True)
class RunPlan:
    """Per-run facts, as parallel arrays indexed by run number (0 = oldest)."""

    tenant: tuple[int, ...]  # tenant number, 0 = the biggest
    age_seconds: tuple[int, ...]  # created this long before the seed's now()
    span_seconds: tuple[int, ...]  # how long the run lasted (or has been going)
    status: tuple[RunStatus, ...]
    parent: tuple[int, ...]  # parent run number, -1 for a root run
    attempts: tuple[int, ...]  # attempts started (the last one active while running)
    events: tuple[int, ...]
    checkpoints: tuple[int, ...]
    operations: tuple[int, ...]
    outbox: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.tenant)


@dataclass(frozen=True)
class SeedPlan:
    tenants: int  # 0 for a single-tenant profile
    window_seconds: int  # runs this young have history (events/checkpoints)
    runs: RunPlan
    expired_leases: int  # running runs whose active attempt's lease already ran out
    part_tables: frozenset[str] = frozenset()  # the model's optional tables (profile model:)

    @property
    def row_counts(self) -> dict[str, int]:
        """Rows per table this plan loads (no tenants table when single-tenant)."""
        r = self.runs
        return {
            **({"tenants": self.tenants} if self.tenants else {}),
            "runs": len(r),
            "run_queue": sum(1 for s in r.status if s in LIVE_STATES),  # the live set
            "attempts": sum(r.attempts),
            "checkpoints": sum(r.checkpoints),
            "events": sum(r.events),
            "operations": sum(r.operations),
            "outbox": sum(r.outbox),
            **{name: count for name, count in self._part_counts().items() if name in self.part_tables},
        }

    def _part_counts(self) -> dict[str, int]:
        """As seed/columns.py loads them: a node execution with one tool call per operation
        slot, an approval for every seventh run that started, two notes for every run that
        started."""
        r = self.runs
        approvals = sum(1 for i, a in enumerate(r.attempts) if i % 7 == 0 and a > 0)
        nodes = sum(r.operations)
        notes = 2 * sum(1 for a in r.attempts if a > 0)
        return {"node_executions": nodes, "tool_calls": nodes, "approvals": approvals, "attempt_notes": notes}


def plan_seed(model: SchemaModel, events: int, seed: int = SEED) -> SeedPlan:
    """The rows to load so `events` events land, with every other table in proportion."""
    if events < 1:
        raise ValueError("events must be at least 1")
    p = model.profile
    rng = random.Random(seed)
    window = min(p.retention.events, WINDOW_CAP_DAYS * DAY)
    mean_events = max(1.0, p.volume.steps_per_second * DAY / p.volume.runs_per_day) * (
        p.volume.events_per_step
    )
    window_runs = max(sum(HOT_MINIMUM.values()) + 2, round(events / mean_events))
    ratio = min((max(p.retention.runs, window) - window) / window, OLD_RUNS_PER_WINDOW_RUN)
    old_runs = round(window_runs * ratio)
    tenants = _tenant_count(old_runs + window_runs) if p.tenancy.column else 0
    runs = _runs(rng, model, old_runs, window_runs, window, events, max(tenants, 1))
    running = [i for i, s in enumerate(runs.status) if s == "running"]
    parts = frozenset(t.name for t in model.tables) & set(PART_TABLES)
    return SeedPlan(tenants, window, runs, expired_leases=max(1, len(running) // 10), part_tables=parts)


def _tenant_count(runs: int) -> int:
    return max(3, min(1000, round(math.sqrt(runs) / 5)))


def zipf_tenant(u: float, tenants: int) -> int:
    """Tenant number for a uniform draw u in [0, 1): P(k) ~ ln((k+2)/(k+1)), Zipf-like."""
    return min(tenants - 1, int(math.exp(u * math.log(tenants + 1))) - 1)


def _runs(
    rng: random.Random, model: SchemaModel, old: int, window: int, seconds: int, events: int, tenants: int
) -> RunPlan:
    total = old + window
    status = _statuses(rng, old, window)
    age = _ages(rng, model, old, window, seconds)
    span = [_span(rng, s, a) for s, a in zip(status, age, strict=True)]
    tree_tenant = [zipf_tenant(rng.random(), tenants) for _ in range(total // TREE_SIZE + 1)]
    tenant = [tree_tenant[i // TREE_SIZE] for i in range(total)]
    parent = [i - i % TREE_SIZE if i % TREE_SIZE == TREE_SIZE - 1 else -1 for i in range(total)]
    attempts = [_attempts(rng, s) for s in status]
    has_history = [i >= old and status[i] != "queued" for i in range(total)]
    event_counts = _spread(rng, events, has_history)
    p = model.profile
    per_checkpoint = p.volume.events_per_step
    checkpoints = [
        -(-n // per_checkpoint) if a < p.retention.checkpoints else 0
        for n, a in zip(event_counts, age, strict=True)
    ]
    operations = [rng.choice((0, 1, 1, 2, 3)) if s != "queued" else 0 for s in status]
    outbox = [
        1 if (s in FINISHED and a < p.retention.outbox_delivered) or s == "running" else 0
        for s, a in zip(status, age, strict=True)
    ]
    return RunPlan(
        tuple(tenant),
        tuple(age),
        tuple(span),
        tuple(status),
        tuple(parent),
        tuple(attempts),
        tuple(event_counts),
        tuple(checkpoints),
        tuple(operations),
        tuple(outbox),
    )


def _statuses(rng: random.Random, old: int, window: int) -> list[RunStatus]:
    """Old runs are all finished; the newest runs of the window are the hot set."""
    hot: list[RunStatus] = []
    for state, share in HOT_SHARE.items():
        hot += [state] * max(HOT_MINIMUM[state], round(window * share))  # type: ignore[list-item]
    rng.shuffle(hot)
    finished = [_finished(rng) for _ in range(old + window - len(hot))]
    return finished + hot


def _finished(rng: random.Random) -> RunStatus:
    draw = rng.random()
    return "succeeded" if draw < 0.9 else "failed" if draw < 0.97 else "cancelled"


def _ages(rng: random.Random, model: SchemaModel, old: int, window: int, seconds: int) -> list[int]:
    """Creation ages, oldest first: old runs over the rest of runs retention, the window's
    over the window (a margin of 2% at either end); the hot set is the newest."""
    margin = max(1, seconds // 50)
    keep = max(model.profile.retention.runs, seconds + 2 * margin + 1)
    old_ages = sorted((rng.randrange(seconds + margin, keep - margin) for _ in range(old)), reverse=True)
    young = sorted((rng.randrange(margin, seconds - margin) for _ in range(window)), reverse=True)
    return old_ages + young


def _span(rng: random.Random, status: RunStatus, age: int) -> int:
    """Finished runs took minutes; live ones have been going since they were created."""
    if status in FINISHED:
        return min(age - 1, rng.randrange(30, 3600))
    return max(1, age - 1)


def _attempts(rng: random.Random, status: RunStatus) -> int:
    if status == "queued":
        return 0
    return 2 if rng.random() < 0.08 else 1


def _spread(rng: random.Random, total: int, eligible: list[bool]) -> list[int]:
    """`total` split over the eligible runs, each 0.25x..2.5x the mean; sums exactly."""
    weights = [rng.uniform(0.25, 2.5) if ok else 0.0 for ok in eligible]
    scale = total / sum(weights)
    counts = [int(w * scale) for w in weights]
    short = total - sum(counts)
    eligible_runs = [i for i, ok in enumerate(eligible) if ok]
    for k in range(short):
        counts[eligible_runs[k % len(eligible_runs)]] += 1
    return counts
