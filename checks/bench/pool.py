"""The coordinator's side of the clients: N processes started with multiprocessing's
"spawn" context (fresh interpreters, each with its own connection), driven segment by
segment through pipes, with one go event and one shared deadline so every client starts
and stops timing together."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from agentddl.checks.bench.worker import Measured, WorkerSetup, serve
from agentddl.checks.core.signals import sigint_ignored
from agentddl.generator.errors import AgentDDLError

START_SECONDS = 120.0  # a process start and connect on a loaded machine
PREPARE_SECONDS = 1800.0  # e.g. building a run of 1,000 checkpoints per client on a slow disk
MEASURE_GRACE_SECONDS = 120.0  # after the deadline: the last operation, the statistics flush


@dataclass
class _Slot:
    process: BaseProcess
    conn: Connection


class Clients:
    """`size` client processes; `configure` points them at a database, `segment` runs
    one workload on all of them, `close` stops them."""

    def __init__(self, size: int) -> None:
        self._mp = multiprocessing.get_context("spawn")
        self.go = self._mp.Event()
        self.deadline = self._mp.Value("d", 0.0)
        self.slots = [self._spawn(slot) for slot in range(size)]
        self.backend_pids: list[int] = []

    def _spawn(self, slot: int) -> _Slot:
        parent, child = self._mp.Pipe()
        process = self._mp.Process(
            target=serve,
            args=(slot, child, self.go, self.deadline),
            name=f"agentddl-bench-{slot}",
            daemon=True,
        )
        with sigint_ignored():  # Ctrl-C stops the coordinator, which stops the clients
            process.start()
        child.close()
        return _Slot(process, parent)

    def configure(self, setup: WorkerSetup) -> list[int]:
        """Every client connects to `setup.dsn`; returns their server backends' pids."""
        answers = self._ask(range(len(self.slots)), setup, START_SECONDS)
        self._raise_failures(answers, "connecting")
        self.backend_pids = [int(body) for _, body in answers.values()]
        return self.backend_pids

    def release(self) -> None:
        """Every client disconnects (before its database is dropped)."""
        self._ask(range(len(self.slots)), ("release",), START_SECONDS)

    def segment(
        self, workload: str, seconds: float, before: Callable[[], Any], after: Callable[[], Any]
    ) -> list[Measured]:
        """Run `workload` on every client for `seconds`: `before()` once all are prepared,
        right before they start; `after()` once all have stopped, before they clean up."""
        every = range(len(self.slots))
        prepared = self._ask(every, ("segment", workload), PREPARE_SECONDS)
        ready = [slot for slot, (kind, _) in prepared.items() if kind == "ready"]
        if len(ready) == len(self.slots):
            before()
            self.deadline.value = time.monotonic() + seconds
        else:
            self.deadline.value = 0.0  # the prepared ones stop at once: nothing is measured
        self.go.set()
        try:
            measured = self._answers(ready, seconds + MEASURE_GRACE_SECONDS)
        finally:
            self.go.clear()
        stopped = [slot for slot, (kind, _) in measured.items() if kind == "measured"]
        if len(stopped) == len(self.slots):
            after()
        finished = self._ask(stopped, ("finish",), PREPARE_SECONDS)
        for phase in (prepared, measured, finished):
            self._raise_failures(phase, workload)
        return [measured[slot][1] for slot in every]

    def _ask(self, slots: range | list[int], message: Any, timeout: float) -> dict[int, tuple[str, Any]]:
        dead: dict[int, tuple[str, Any]] = {}
        for slot in slots:
            try:
                self.slots[slot].conn.send(message)
            except OSError:  # it died (a broken pipe): said as that client's failure
                dead[slot] = ("failed", "the client process died")
        return {**self._answers([s for s in slots if s not in dead], timeout), **dead}

    def _answers(self, slots: list[int], timeout: float) -> dict[int, tuple[str, Any]]:
        """One answer from each of `slots`; a client that dies or stays silent is an error."""
        answers: dict[int, tuple[str, Any]] = {}
        waiting = {self.slots[slot].conn: slot for slot in slots}
        deadline = time.monotonic() + timeout
        while waiting:
            left = deadline - time.monotonic()
            ready = wait(list(waiting), timeout=max(0.0, min(left, 1.0)))
            for ready_conn in ready:
                slot = waiting.pop(ready_conn)  # type: ignore[call-overload]
                try:
                    answers[slot] = self.slots[slot].conn.recv()
                except (EOFError, OSError):
                    answers[slot] = ("failed", "the client process died")
            for conn, slot in list(waiting.items()):
                if not self.slots[slot].process.is_alive():
                    answers[slot] = ("failed", "the client process died")
                    del waiting[conn]
            if waiting and time.monotonic() > deadline:
                raise AgentDDLError(f"bench client {min(waiting.values())} did not answer in {timeout:.0f} s")
        return answers

    @staticmethod
    def _raise_failures(answers: dict[int, tuple[str, Any]], doing: str) -> None:
        failed = sorted((slot, str(body)) for slot, (kind, body) in answers.items() if kind == "failed")
        if failed:
            slot, why = failed[0]
            raise AgentDDLError(f"bench client {slot} failed {doing}: {why.strip().splitlines()[-1]}")

    def close(self) -> None:
        for entry in self.slots:
            with contextlib.suppress(OSError):
                entry.conn.send(None)
        for entry in self.slots:
            entry.process.join(10)
            if entry.process.is_alive():
                entry.process.kill()
                entry.process.join(5)
            entry.conn.close()
