"""A pool of worker processes driven through pipes: prove's workers and bench's clients.

The coordinator's half, `WorkerPool`: N processes started with multiprocessing's
"spawn" context (fresh interpreters: nothing inherited but what is pickled, and a
worker imports only its family's worker module, never the coordinator's), one pipe
each, a message out and one answer back per worker, a dead worker seen at once (its
pipe ends), replaced on demand, and every process stopped by `close`.

The worker's half, `serve`: the loop each process runs. `Configure(setup)` opens a
session on it (answered "configured", or "failed" with why), `RELEASE` closes the
session (answered "released", e.g. before its database is dropped), `None` (or a
closed pipe) ends the process; any other message is the family's, handled by its
`WorkerSide` on the open session. An answer is a pair `(kind, body)`.
"""

from __future__ import annotations

import abc
import multiprocessing
import time
import traceback
from collections.abc import Collection
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, ClassVar, Generic, TypeVar

from agentddl.checks.core.signals import sigint_ignored
from agentddl.generator.errors import AgentDDLError

CONTEXT = multiprocessing.get_context("spawn")  # shared events and values come from it too
RELEASE = ("release",)
DIED = "died"  # the kind of answer of a worker whose process or pipe is gone
Answer = tuple[str, Any]
Session = TypeVar("Session")


@dataclass(frozen=True)
class Configure:
    """Point a worker at `setup` (pickled into it): it opens its session on it."""

    setup: Any


@dataclass
class Slot:
    process: BaseProcess
    conn: Connection


class WorkerSide(abc.ABC, Generic[Session]):
    """A family's part of a worker process (pickled into it, so it imports only the
    family's worker module): what a session is and what it does with a message."""

    def begin(self) -> None:
        """Once, when the process starts; nothing by default."""
        return None

    @abc.abstractmethod
    def open(self, setup: Any, slot: int, pipe: Connection) -> Session:
        """The session `setup` describes (e.g. a database connection)."""

    def configured(self, session: Session) -> Any:
        """The body of the "configured" answer."""
        return None

    @abc.abstractmethod
    def handle(self, session: Session, message: Any, pipe: Connection) -> None:
        """One of the family's messages; its answers go to `pipe`."""

    @abc.abstractmethod
    def close(self, session: Session) -> None:
        """Release what `open` took."""


def serve(slot: int, pipe: Connection, side: WorkerSide[Any]) -> None:
    """A worker process's loop until the coordinator sends None or closes the pipe."""
    side.begin()
    session: Any = None
    while True:
        try:
            message = pipe.recv()
        except EOFError:
            message = None
        if message is not None and not isinstance(message, Configure) and message != RELEASE:
            if session is not None:
                side.handle(session, message, pipe)
            continue
        if session is not None:
            side.close(session)
            session = None
        if message is None:
            return
        if message == RELEASE:
            pipe.send(("released", None))
        else:
            session = _open(side, message.setup, slot, pipe)


def _open(side: WorkerSide[Any], setup: Any, slot: int, pipe: Connection) -> Any:
    try:
        session = side.open(setup, slot, pipe)
    except AgentDDLError as error:  # e.g. the server refused the connection: its one line
        pipe.send(("failed", str(error)))
        return None
    except Exception:
        pipe.send(("failed", traceback.format_exc(limit=4)))
        return None
    pipe.send(("configured", side.configured(session)))
    return session


class WorkerPool:
    """`size` worker processes, each running `serve` with `side`; `role` names one in
    messages ("prove worker", "bench client")."""

    role: ClassVar[str] = "worker"
    stop_seconds: ClassVar[float] = 5.0  # how long `close` waits for a worker to exit

    def __init__(self, size: int, side: WorkerSide[Any], name: str) -> None:
        self.side, self.name = side, name
        self.slots = {slot: self._spawn(slot) for slot in range(size)}

    @property
    def size(self) -> int:
        return len(self.slots)

    def _spawn(self, slot: int) -> Slot:
        parent, child = CONTEXT.Pipe()
        process = CONTEXT.Process(
            target=serve, args=(slot, child, self.side), name=f"{self.name}-{slot}", daemon=True
        )
        with sigint_ignored():  # inherited: Ctrl-C stops the coordinator, which stops the workers
            process.start()
        child.close()
        return Slot(process, parent)

    def respawn(self, slot: int) -> None:
        """A new process in `slot` (its old one is dead, or as good as)."""
        old = self.slots[slot]
        old.process.join(5)
        old.conn.close()
        self.slots[slot] = self._spawn(slot)

    def send(self, slot: int, message: Any) -> bool:
        """False when the worker is gone (a broken pipe)."""
        try:
            self.slots[slot].conn.send(message)
        except OSError:
            return False
        return True

    def receive(self, slot: int) -> Answer | None:
        """The worker's next answer if one is there, `(DIED, None)` if its pipe is closed."""
        conn = self.slots[slot].conn
        try:
            answer: Answer | None = conn.recv() if conn.poll() else None
        except (EOFError, OSError):
            return (DIED, None)
        return answer

    def readable(self, slots: Collection[int], timeout: float) -> list[int]:
        """The slots among `slots` with an answer waiting or a dead process, after at most
        `timeout` seconds."""
        by_object: dict[Any, int] = {}
        for slot in slots:
            by_object[self.slots[slot].conn] = slot
            by_object[self.slots[slot].process.sentinel] = slot
        return sorted({by_object[o] for o in wait(list(by_object), timeout=timeout)})

    def ask(
        self, slots: Collection[int], message: Any, timeout: float, expected: str | None = None
    ) -> dict[int, Answer]:
        """Send `message` to every slot of `slots`, then gather their answers."""
        dead = {slot: (DIED, None) for slot in slots if not self.send(slot, message)}
        return {**self.gather([s for s in slots if s not in dead], timeout, expected), **dead}

    def gather(
        self, slots: Collection[int], timeout: float, expected: str | None = None
    ) -> dict[int, Answer]:
        """One answer from each of `slots` (a dead worker's is `(DIED, None)`); with
        `expected`, answers of another kind than it or "failed" are passed over (e.g. the
        late acknowledgement of a replacement). A worker silent for `timeout` seconds is
        an error."""
        answers: dict[int, Answer] = {}
        waiting = set(slots)
        deadline = time.monotonic() + timeout
        while waiting:
            for slot in self.readable(waiting, max(0.0, min(deadline - time.monotonic(), 1.0))):
                answer = self.receive(slot)
                if answer is None and not self.slots[slot].process.is_alive():
                    answer = (DIED, None)
                if answer is not None and (expected is None or answer[0] in (expected, "failed", DIED)):
                    answers[slot] = answer
                    waiting.discard(slot)
            if waiting and time.monotonic() > deadline:
                raise AgentDDLError(f"{self.role} {min(waiting)} did not answer in {timeout:.0f} s")
        return answers

    def close(self) -> None:
        """Every worker told to exit, waited for, killed if it does not."""
        for slot in self.slots:
            self.send(slot, None)
        for entry in self.slots.values():
            entry.process.join(self.stop_seconds)
            if entry.process.is_alive():
                entry.process.kill()
                entry.process.join(5)
            entry.conn.close()
