"""The worker pool bench and prove share (checks/core/workers.py), with a worker side of
its own: configure, answers, a death seen at once, a refused setup, release, close."""

from __future__ import annotations

import os
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

import pytest

from agentddl.checks.core.workers import DIED, RELEASE, Configure, WorkerPool, WorkerSide
from agentddl.generator.errors import AgentDDLError


class EchoSide(WorkerSide[str]):
    """A session is the setup's text; ("echo", x) answers ("echo", (session, x)),
    ("noise",) answers twice (a stray answer first), ("die",) exits without a word."""

    def open(self, setup: str, slot: int, pipe: Connection) -> str:
        if setup == "refuse":
            raise AgentDDLError("refused: no such database")
        return f"{setup}#{slot}"

    def configured(self, session: str) -> Any:
        return os.getpid()

    def handle(self, session: str, message: Any, pipe: Connection) -> None:
        if message == ("die",):
            os._exit(3)
        if message == ("noise",):
            pipe.send(("stray", None))
            pipe.send(("echo", session))
            return
        pipe.send(("echo", (session, message[1])))

    def close(self, session: str) -> None:
        return None


class EchoPool(WorkerPool):
    role = "echo worker"


@pytest.fixture(scope="module")
def pool() -> Iterator[EchoPool]:
    workers = EchoPool(2, EchoSide(), "agentddl-test-echo")
    try:
        yield workers
    finally:
        workers.close()


def test_configured_workers_answer_their_messages(pool: EchoPool) -> None:
    configured = pool.ask(pool.slots, Configure("db"), 60)
    assert sorted(kind for kind, _ in configured.values()) == ["configured", "configured"]
    assert {body for _, body in configured.values()} == {e.process.pid for e in pool.slots.values()}
    answers = pool.ask(pool.slots, ("echo", 7), 10)
    assert answers == {0: ("echo", ("db#0", 7)), 1: ("echo", ("db#1", 7))}


def test_an_expected_kind_passes_over_other_answers(pool: EchoPool) -> None:
    pool.ask(pool.slots, Configure("db"), 60)
    assert pool.ask([0], ("noise",), 10, expected="echo") == {0: ("echo", "db#0")}


def test_a_refused_setup_is_a_failed_answer_with_its_one_line(pool: EchoPool) -> None:
    answers = pool.ask([1], Configure("refuse"), 60)
    assert answers == {1: ("failed", "refused: no such database")}
    with pytest.raises(AgentDDLError, match="echo worker 1 did not answer in 1 s"):
        pool.ask([1], ("echo", 1), 1)  # no session: nothing to answer with
    assert pool.ask([1], RELEASE, 10) == {1: ("released", None)}


def test_a_dead_worker_answers_died_and_is_replaced(pool: EchoPool) -> None:
    pool.ask(pool.slots, Configure("db"), 60)
    old = pool.slots[0].process.pid
    assert pool.ask([0], ("die",), 10) == {0: (DIED, None)}
    pool.respawn(0)
    assert pool.slots[0].process.pid != old
    assert pool.ask([0], Configure("again"), 60)[0][0] == "configured"
    assert pool.ask([0], ("echo", 2), 10) == {0: ("echo", ("again#0", 2))}


def test_close_stops_every_process() -> None:
    workers = EchoPool(2, EchoSide(), "agentddl-test-echo")
    processes = [entry.process for entry in workers.slots.values()]
    workers.close()
    assert [p for p in processes if p.is_alive()] == []
