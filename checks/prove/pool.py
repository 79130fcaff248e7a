"""The coordinator's side of the workers: N processes started with multiprocessing's
"spawn" context (fresh interpreters, nothing inherited but what is pickled), fed Tasks
through pipes, replaced when they die. A pool outlives one database: `configure` points
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
import multiprocessing
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from agentddl.checks.core.signals import sigint_ignored
from agentddl.checks.prove.worker import Task, WorkerSetup, serve
from agentddl.generator.errors import AgentDDLError

GRACE_SECONDS = 30.0  # after stop: how long workers get to answer before they are killed
MAX_DEATHS = 200  # per run: beyond planned crashes, a worker that cannot start at all


@dataclass
class _Slot:
    process: BaseProcess
    conn: Connection


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


class Pool:
    def __init__(self, size: int) -> None:
        self._mp = multiprocessing.get_context("spawn")
        self.setup: WorkerSetup | None = None
        self.stop = self._mp.Event()
        self.go = self._mp.Event()
        self.starting: set[int] = set()  # replacements not yet connected to the database
        self.slots = {slot: self._spawn(slot) for slot in range(size)}

    @property
    def size(self) -> int:
        return len(self.slots)

    def _spawn(self, slot: int) -> _Slot:
        parent, child = self._mp.Pipe()
        process = self._mp.Process(
            target=serve, args=(slot, child, self.stop, self.go), name=f"agentddl-prove-{slot}", daemon=True
        )
        with sigint_ignored():  # inherited: Ctrl-C stops the coordinator, which stops the workers
            process.start()
        child.close()
        if self.setup is not None:  # a replacement joins the current database (its ack is skipped)
            self.starting.add(slot)
            with contextlib.suppress(OSError):  # died at once: seen as a death, replaced again
                parent.send(self.setup)
        return _Slot(process, parent)

    def configure(self, setup: WorkerSetup) -> None:
        """Point every worker at `setup`'s database and queries; wait until all connected."""
        self.setup = setup
        self._broadcast(setup, "configured")

    def release(self) -> None:
        """Every worker disconnects (before its database is dropped). Work still going on
        (the coordinator was interrupted mid-scenario) is stopped first."""
        self.setup = None
        self.stop.set()
        self.go.set()
        try:
            self._broadcast(("release",), "released")
        finally:
            self.stop.clear()
            self.go.clear()

    def _broadcast(self, message: Any, ack: str) -> None:
        for slot in [s for s, entry in self.slots.items() if not entry.process.is_alive()]:
            self.respawn(slot)  # died after its last task (a crash point at the very end)
        for entry in self.slots.values():
            entry.conn.send(message)
        for slot, entry in self.slots.items():
            kind, body = "", None
            while kind != ack:  # skip the ack of a replacement that started during the last run
                if not entry.conn.poll(120):
                    raise AgentDDLError(f"prove worker {slot} did not answer")
                try:
                    kind, body = entry.conn.recv()
                except (EOFError, OSError) as error:
                    raise AgentDDLError(f"prove worker {slot} died while starting") from error
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
            for slot in self._wait(pending):
                self._receive(slot, pending, ready, len(tasks), run)
            run.tick(pending)
        out.seconds = time.monotonic() - started
        self.stop.clear()
        self.go.clear()
        return out

    def _wait(self, pending: set[int]) -> list[int]:
        by_object: dict[Any, int] = {}
        for slot in pending:
            by_object[self.slots[slot].conn] = slot
            by_object[self.slots[slot].process.sentinel] = slot
        return sorted({by_object[o] for o in wait(list(by_object), timeout=0.1)})

    def _receive(self, slot: int, pending: set[int], ready: set[int], expected: int, run: _Run) -> None:
        entry = self.slots[slot]
        try:
            message = entry.conn.recv() if entry.conn.poll() else None
        except (EOFError, OSError):
            message = None
        if message is None:
            if not entry.process.is_alive():
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

    def respawn(self, slot: int) -> None:
        old = self.slots[slot]
        old.process.join(5)
        old.conn.close()
        self.slots[slot] = self._spawn(slot)

    def close(self) -> None:
        for entry in self.slots.values():
            with contextlib.suppress(OSError):
                entry.conn.send(None)
        for entry in self.slots.values():
            entry.process.join(5)
            if entry.process.is_alive():
                entry.process.kill()
                entry.process.join(5)
            entry.conn.close()



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
