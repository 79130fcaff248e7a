"""The coordinator's side of the workers: a core.workers pool of N processes, fed Tasks
through their pipes, replaced when they die. A pool outlives one database: `configure` points
every worker at a database and queries.sql, `release` disconnects them, so proving
several schemas (strategies, weakened variants) starts the processes once.

`run` hands each slot a task and waits until every slot has answered. Meanwhile it
watches: a dead worker (SIGKILL) is counted and replaced by a new process, which gets
the scenario's replacement task; `finished()` true sets the stop event the workers'
loops check; `progress()` unchanged for `stall_seconds` means nothing moves any more
(stuck runs): stop too, and say so. The stall clock stands still while a replacement
worker is starting, so a slow machine's slow process start is never mistaken for a
stuck run.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentddl.checks.core.workers import CONTEXT, DIED, RELEASE, Configure, Slot, WorkerPool
from agentddl.checks.prove.worker import ProveSide, Task, WorkerSetup
from agentddl.generator.errors import AgentDDLError

GRACE_SECONDS = 30.0  # after stop: how long workers get to answer before they are killed
MAX_DEATHS = 200  # per run: beyond planned crashes, a worker that cannot start at all
START_SECONDS = 120.0  # every worker connected (or disconnected) on a loaded machine


@dataclass
class Dispatch:
    """What one `run` saw."""

    results: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # worker tracebacks
    deaths: int = 0  # workers that died (SIGKILL) and were replaced
    stalled: bool = False  # progress stopped before finished() held
    timed_out: bool = False
    seconds: float = 0.0

    def all_results(self) -> list[dict[str, Any]]:
        return [r for rs in self.results.values() for r in rs]


@dataclass
class Watch:
    """How `run` decides a task set is over."""

    finished: Callable[[], bool] | None = None
    progress: Callable[[], Hashable] | None = None
    stall_seconds: float = 10.0
    timeout: float = 600.0
    replacement: Callable[[int], Task | None] | None = None  # the task for a slot's new worker


class Pool(WorkerPool):
    role = "prove worker"

    def __init__(self, size: int) -> None:
        self.setup: WorkerSetup | None = None
        self.stop = CONTEXT.Event()
        self.go = CONTEXT.Event()
        self.starting: set[int] = set()  # replacements not yet connected to the database
        super().__init__(size, ProveSide(self.stop, self.go), "agentddl-prove")

    def _spawn(self, slot: int) -> Slot:
        entry = super()._spawn(slot)
        if self.setup is not None:  # a replacement joins the current database (its ack is skipped)
            self.starting.add(slot)
            with contextlib.suppress(OSError):  # died at once: seen as a death, replaced again
                entry.conn.send(Configure(self.setup))
        return entry

    def configure(self, setup: WorkerSetup) -> None:
        """Point every worker at `setup`'s database and queries; wait until all connected."""
        self.setup = setup
        self._broadcast(Configure(setup), "configured")

    def release(self) -> None:
        """Every worker disconnects (before its database is dropped). Work still going on
        (the coordinator was interrupted mid-scenario) is stopped first."""
        self.setup = None
        self.stop.set()
        self.go.set()
        try:
            self._broadcast(RELEASE, "released")
        finally:
            self.stop.clear()
            self.go.clear()

    def _broadcast(self, message: Any, ack: str) -> None:
        for slot in [s for s, entry in self.slots.items() if not entry.process.is_alive()]:
            self.respawn(slot)  # died after its last task (a crash point at the very end)
        # the ack of a replacement that started during the last run is passed over
        answers = self.ask(self.slots, message, START_SECONDS, expected=ack)
        for slot, (kind, body) in sorted(answers.items()):
            if kind == DIED:
                raise AgentDDLError(f"prove worker {slot} died while starting")
            if kind == "failed":
                raise AgentDDLError(
                    f"prove worker {slot} could not start: {str(body).strip().splitlines()[-1]}"
                )
        self.starting.clear()

    def run(self, tasks: Mapping[int, Task], watch: Watch | None = None) -> Dispatch:
        watch = watch or Watch()
        out = Dispatch(results={slot: [] for slot in tasks})
        started = time.monotonic()
        pending = set(tasks)
        ready: set[int] = set()
        for slot, task in tasks.items():
            self.slots[slot].conn.send(task)
        run = _Run(self, watch, out, started)
        while pending:
            for slot in self.readable(pending, 0.1):
                self._receive(slot, pending, ready, len(tasks), run)
            run.tick(pending)
        out.seconds = time.monotonic() - started
        self.stop.clear()
        self.go.clear()
        return out

    def _receive(self, slot: int, pending: set[int], ready: set[int], expected: int, run: _Run) -> None:
        message = self.receive(slot)
        if message is None or message[0] == DIED:
            if not self.slots[slot].process.is_alive():
                run.replace(slot, pending)
            return
        kind, body = message
        if kind == "configured":  # a replacement is up: nothing could move while it started
            self.starting.discard(slot)
            run.last_change = time.monotonic()
            return
        if kind == "released":
            return
        if kind == "ready":
            ready.add(slot)
            if len(ready) >= expected:
                self.go.set()
        elif kind == "result":
            run.out.results[slot].append(body)
            pending.discard(slot)
        else:
            run.out.failures.append(body)
            pending.discard(slot)


class _Run:
    """The watching half of Pool.run: deaths, finish, stall and timeout."""

    def __init__(self, pool: Pool, watch: Watch, out: Dispatch, started: float) -> None:
        self.pool, self.watch, self.out, self.started = pool, watch, out, started
        self.last_progress: Hashable = None
        self.last_change = started
        self.stopped_at: float | None = None
        self.next_look = started

    def replace(self, slot: int, pending: set[int]) -> None:
        """A worker died: start another in its slot with the scenario's replacement task.
        A replacement that dies before it runs anything (its interpreter could not even
        import agentddl) is replaced again, a bounded number of times."""
        self.out.deaths += 1
        if self.out.deaths > MAX_DEATHS:
            self.out.failures.append(f"more than {MAX_DEATHS} workers died: giving up on worker {slot}")
            pending.discard(slot)
            return
        self.pool.respawn(slot)
        task = self.watch.replacement(slot) if self.watch.replacement else None
        if task is None or self.pool.stop.is_set():
            pending.discard(slot)
            return
        with contextlib.suppress(OSError):  # dead already: the next wait() sees it and replaces it again
            self.pool.slots[slot].conn.send(task)

    def tick(self, pending: set[int]) -> None:
        now = time.monotonic()
        if self.stopped_at is not None:
            if now - self.stopped_at > GRACE_SECONDS:
                self._kill(pending)
            return
        if now < self.next_look:
            return
        self.next_look = now + 0.25
        if self.watch.finished and self.watch.finished():
            self._stop(now)
        elif now - self.started > self.watch.timeout:
            self.out.timed_out = True
            self._stop(now)
        elif self.watch.progress:
            self._check_stall(now)

    def _check_stall(self, now: float) -> None:
        assert self.watch.progress is not None
        if self.pool.starting:  # a process start on a loaded machine can take seconds
            self.last_change = now
            return
        seen = self.watch.progress()
        if seen != self.last_progress:
            self.last_progress, self.last_change = seen, now
        elif now - self.last_change > self.watch.stall_seconds:
            self.out.stalled = True
            self._stop(now)

    def _stop(self, now: float) -> None:
        self.pool.stop.set()
        self.pool.go.set()  # a worker still waiting for the others must not wait forever
        self.stopped_at = now

    def _kill(self, pending: set[int]) -> None:
        for slot in sorted(pending):
            self.pool.slots[slot].process.kill()
            self.out.failures.append(f"worker {slot} did not stop within {GRACE_SECONDS:.0f} s: killed")
            self.pool.respawn(slot)
        pending.clear()
