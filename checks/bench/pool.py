"""The coordinator's side of the clients: a core.workers pool of N client processes,
driven segment by segment, with one go event and one shared deadline so every client
starts and stops timing together."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agentddl.checks.bench.worker import BenchSide, Measured, WorkerSetup
from agentddl.checks.core.workers import CONTEXT, DIED, RELEASE, Answer, Configure, WorkerPool
from agentddl.generator.errors import AgentDDLError

START_SECONDS = 120.0  # a process start and connect on a loaded machine
PREPARE_SECONDS = 1800.0  # e.g. building a run of 1,000 checkpoints per client on a slow disk
MEASURE_GRACE_SECONDS = 120.0  # after the deadline: the last operation, the statistics flush


class Clients(WorkerPool):
    """`size` client processes; `configure` points them at a database, `segment` runs
    one workload on all of them, `close` stops them."""

    role = "bench client"
    stop_seconds = 10.0

    def __init__(self, size: int) -> None:
        self.go = CONTEXT.Event()
        self.deadline = CONTEXT.Value("d", 0.0)
        super().__init__(size, BenchSide(self.go, self.deadline), "agentddl-bench")
        self.backend_pids: list[int] = []

    def configure(self, setup: WorkerSetup) -> list[int]:
        """Every client connects to `setup.dsn`; returns their server backends' pids."""
        answers = self.ask(self.slots, Configure(setup), START_SECONDS)
        self._raise_failures(answers, "connecting")
        self.backend_pids = [int(answers[slot][1]) for slot in self.slots]
        return self.backend_pids

    def release(self) -> None:
        """Every client disconnects (before its database is dropped)."""
        self.ask(self.slots, RELEASE, START_SECONDS)

    def segment(
        self, workload: str, seconds: float, before: Callable[[], Any], after: Callable[[], Any]
    ) -> list[Measured]:
        """Run `workload` on every client for `seconds`: `before()` once all are prepared,
        right before they start; `after()` once all have stopped, before they clean up."""
        prepared = self.ask(self.slots, ("segment", workload), PREPARE_SECONDS)
        ready = [slot for slot, (kind, _) in prepared.items() if kind == "ready"]
        if len(ready) == self.size:
            before()
            self.deadline.value = time.monotonic() + seconds
        else:
            self.deadline.value = 0.0  # the prepared ones stop at once: nothing is measured
        self.go.set()
        try:
            measured = self.gather(ready, seconds + MEASURE_GRACE_SECONDS)
        finally:
            self.go.clear()
        stopped = [slot for slot, (kind, _) in measured.items() if kind == "measured"]
        if len(stopped) == self.size:
            after()
        finished = self.ask(stopped, ("finish",), PREPARE_SECONDS)
        for phase in (prepared, measured, finished):
            self._raise_failures(phase, workload)
        return [measured[slot][1] for slot in self.slots]

    @staticmethod
    def _raise_failures(answers: dict[int, Answer], doing: str) -> None:
        failed = sorted(
            (slot, "the client process died" if kind == DIED else str(body))
            for slot, (kind, body) in answers.items()
            if kind in ("failed", DIED)
        )
        if failed:
            slot, why = failed[0]
            raise AgentDDLError(f"bench client {slot} failed {doing}: {why.strip().splitlines()[-1]}")
