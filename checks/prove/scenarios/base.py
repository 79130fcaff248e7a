"""What a scenario's coordinator side gets: the pool, the observer, the tenants."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from agentddl.checks.prove.journal import read_journal
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.pool import Dispatch, Pool, Watch
from agentddl.checks.prove.result import WORKER_FAILURE, Count, ScenarioResult
from agentddl.checks.prove.worker import Task
from agentddl.generator.model import SchemaModel


class CrashableServer(Protocol):
    """A server prove started itself, which the server_crash scenario may kill."""

    def crash(self) -> int:
        """Kill every server process at once; how many there were."""

    def restart(self) -> None:
        """Start it again on the same data and port (crash recovery); back when it accepts connections."""


class Background:
    """A coordinator-side thread beside a dispatch (feeding runs, injecting faults):
    `loop()` runs in it until done or `halt` is set; `done` is set when it returns, and
    what it raised is raised again by `stop()`, in the coordinator's thread."""

    def __init__(self) -> None:
        self.done, self.halt = threading.Event(), threading.Event()
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def loop(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.halt.set()
        self._thread.join()
        if self.failure is not None:
            raise self.failure

    def _run(self) -> None:
        try:
            self.loop()
        except BaseException as error:  # raised again by stop()
            self.failure = error
        finally:
            self.done.set()


@dataclass
class ScenarioContext:
    name: str
    model: SchemaModel
    pool: Pool
    observer: Observer
    options: ProveOptions
    journal_dir: str
    tenants: list[Any]  # [None] when single-tenant
    hot: Any = None  # checks/prove/hot.py's HotCoordinator (hot_state.store: redis)
    server: CrashableServer | None = None  # the server, when prove started it (it may be crashed)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.options.seed}-{self.name}")
        self.started = time.monotonic()

    @property
    def strategy(self) -> str:
        return self.model.profile.lock_strategy.value

    @property
    def rls(self) -> bool:
        return self.model.profile.tenancy.row_level_security

    @property
    def slots(self) -> list[int]:
        return sorted(self.pool.slots)

    def tenant_of_slot(self, slot: int) -> Any:
        """Under row-level security a worker serves one tenant (its session's)."""
        return self.tenants[slot % len(self.tenants)]

    def task(self, action: str, crash_at: str | None = None, lease: int | None = None, **params: Any) -> Task:
        return Task(self.name, action, params, crash_at, lease)

    def dispatch(self, tasks: dict[int, Task], watch: Watch | None = None) -> Dispatch:
        return self.pool.run(tasks, watch)

    def phase(
        self, slots: list[int], action: str, tenant: Any, until: Callable[[], bool], lease: int | None = None
    ) -> Dispatch:
        """`action` on every slot, with `lease`, until `until()` holds or nothing moves."""
        watch = Watch(
            finished=until,
            progress=lambda: self.observer.progress(self.name),
            stall_seconds=self.options.stall_seconds,
        )
        return self.dispatch({s: self.task(action, lease=lease, tenant=tenant) for s in slots}, watch)

    def stall_and_take_over(
        self, tenant: Any, count: int, lease: int
    ) -> tuple[list[int], list[int], Dispatch, Dispatch]:
        """`count` runs of `tenant`; half the workers (A, `stale`) claim them all and stall,
        the other half (B, `fresh`, on leases of `lease` s) take each one over once A's
        lease runs out. Returns the two halves and their dispatches (A's, B's)."""
        self.observer.start_runs(self.name, ((tenant, {}) for _ in range(count)))
        half = max(1, len(self.slots) // 2)
        stale, fresh = self.slots[:half], self.slots[half:]
        held = self.phase(stale, "hold", tenant, until=lambda: self.observer.live_queued(self.name) == 0)
        taken = self.phase(
            fresh, "take_over", tenant, lease=lease, until=lambda: held_by(self, self.name, fresh) >= count
        )
        return stale, fresh, held, taken

    def drain_watch(self, replacement: Callable[[int], Task | None] | None = None) -> Watch:
        """Until every run of the scenario is terminal, or nothing moves any more."""
        return Watch(
            finished=lambda: self.observer.live_runs(self.name) == 0,
            progress=lambda: self.observer.progress(self.name),
            stall_seconds=self.options.stall_seconds,
            timeout=120.0 + self.options.runs * 0.5,
            replacement=replacement,
        )

    def journal(self) -> list[dict[str, Any]]:
        return read_journal(self.journal_dir, self.name)

    def completed_runs(self) -> int:
        """The scenario's runs that succeeded."""
        return sum(1 for r in self.observer.runs(self.name) if r["status"] == "succeeded")

    def result(
        self, counts: Mapping[str, Count], guarded: Mapping[str, str], dispatch: Dispatch | None = None
    ) -> ScenarioResult:
        """The scenario's verdict on `counts` by its `guarded` counts. With the dispatch
        whose workers' failures it judges, their number is the `worker_failures` count
        (guarded: the scenario declares it) and their last lines are violations."""
        if dispatch is not None:
            assert "worker_failures" in guarded, f"{self.name} judges workers: declare worker_failures"
            counts = {**counts, "worker_failures": len(dispatch.failures)}
        found = verdict(self.name, self.strategy, counts, guarded)
        if dispatch is not None:
            found.violations += [
                f"{WORKER_FAILURE}{f.strip().splitlines()[-1]}" for f in dispatch.failures[:3]
            ]
        found.seconds = time.monotonic() - self.started
        return found


def verdict(
    name: str, strategy: str, counts: Mapping[str, Count], guarded: Mapping[str, str]
) -> ScenarioResult:
    """The scenario holds when every count in `guarded` is 0; each that is not becomes a
    violation, worded by its description."""
    violations = [f"{description}: {counts[key]}" for key, description in guarded.items() if counts.get(key)]
    return ScenarioResult(name, strategy, dict(counts), violations, guarded=dict(guarded))


FOREVER = timedelta(days=36500)


def held_by(ctx: ScenarioContext, scenario: str, slots: list[int]) -> int:
    """Runs whose live attempt belongs to one of `slots`' workers: takeovers by those workers
    only (a claim takes over any lapsed lease, a stalled worker's own included)."""
    workers = {f"worker-{slot}" for slot in slots}
    live = [a for a in ctx.observer.attempts(scenario) if a["status"] == "active"]
    return sum(1 for attempt in live if attempt["worker_id"] in workers)


def broken_histories(ctx: ScenarioContext, succeeded: list[dict[str, Any]], steps: int) -> int:
    """Succeeded runs whose history is not whole: checkpoints not exactly seq 1..steps;
    events not numbered 1..n without a gap or a double, or whose worker steps
    (step.done, the payload's step number) are not 1..steps once each, in order. The
    rest of the events are the claims' and endings' own (attempt.*)."""
    wanted = list(range(1, steps + 1))
    checkpoints: dict[Any, list[int]] = defaultdict(list)
    for row in ctx.observer.child_rows("checkpoints", ctx.name):
        checkpoints[row["run_id"]].append(row["seq"])
    events: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in ctx.observer.child_rows("events", ctx.name):
        events[row["run_id"]].append(row)

    def whole(run_id: Any) -> bool:
        history = sorted(events[run_id], key=lambda e: e["seq"])
        numbered = [e["seq"] for e in history] == list(range(1, len(history) + 1))
        stepped = [e["payload"].get("step") for e in history if e["kind"] == "step.done"] == wanted
        return sorted(checkpoints[run_id]) == wanted and numbered and stepped

    return sum(1 for r in succeeded if not whole(r["run_id"]))


def share(items: list[Any], slots: list[int], slot: int) -> list[Any]:
    """`slot`'s part of `items`, dealt round-robin over `slots`."""
    return items[slots.index(slot) :: len(slots)]


def overlapping_attempts(attempts: list[dict[str, Any]]) -> int:
    """Runs that had two live attempts at one time, from the attempts' history: one started
    before the previous one ended (an attempt still active has not ended). An expired
    attempt is left out: its end is the reaper's transaction start, which may fall just
    after the start of the claim that waited for the reaper's commit."""
    by_run: dict[Any, list[dict[str, Any]]] = {}
    for attempt in attempts:
        by_run.setdefault(attempt["run_id"], []).append(attempt)
    overlapping = 0
    for history in by_run.values():
        history.sort(key=lambda a: a["started_at"])
        if any(
            later["started_at"] < (earlier["ended_at"] or later["started_at"] + FOREVER)
            for earlier, later in itertools.pairwise(history)
            if earlier["status"] != "expired"
        ):
            overlapping += 1
    return overlapping


def errors(journal: list[dict[str, Any]]) -> int:
    return sum(1 for line in journal if line["kind"] == "error")
