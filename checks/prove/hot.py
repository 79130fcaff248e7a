"""prove's side of the hot projection (profiles with `hot_state.store: redis`): the Redis
a prove run uses, the generated redis/hot_state.py loaded in every process, a worker's
hold on a run (heartbeats and progress to Redis, the durable lease renewed in PostgreSQL
on the module's cadence), and what the coordinator reads and does to Redis.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import agentddl.checks.prove.steps as steps
from agentddl.checks.core.progress import Progress
from agentddl.checks.db.hot_runtime import hot_module_text, load_hot_module
from agentddl.checks.db.redis_server import RedisServer, open_redis, redis_client
from agentddl.checks.prove.hot_setup import HotSetup
from agentddl.checks.prove.options import ProveRequest
from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS
from agentddl.checks.prove.worker import Row, WorkerContext
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel
from agentddl.generator.profile import Profile


def uses_redis(profile: Profile) -> bool:
    return profile.hot_state.store == "redis"


def default_scenarios(model: SchemaModel) -> tuple[str, ...]:
    """Every scenario; the hot projection's too when the profile keeps it in Redis."""
    return (*SCENARIOS, *HOT_SCENARIOS) if uses_redis(model.profile) else SCENARIOS


def validate_hot(request: ProveRequest) -> None:
    """A hot scenario, --redis or a hot_state.py needs a profile with the hot store."""
    if uses_redis(request.profile):
        return
    asked = [name for name in request.options.scenarios if name in HOT_SCENARIOS]
    what = (
        f"scenario {asked[0]!r}"
        if asked
        else "--redis"
        if request.redis
        else "a redis/hot_state.py"
        if request.hot_state_text
        else None
    )
    if what:
        raise AgentDDLError(
            f"{what} needs a profile with hot_state.store: redis (profile {request.profile.name!r} "
            "keeps its hot state in PostgreSQL)"
        )


@contextlib.contextmanager
def hot_server(request: ProveRequest, progress: Progress) -> Iterator[RedisServer | None]:
    """The run's Redis: --redis, else a throwaway redis-server; None without a hot store."""
    if not uses_redis(request.profile):
        yield None
        return
    with open_redis(request.redis) as server:
        progress(f"hot state: Redis at {server.url}" + (" (embedded)" if server.embedded else ""))
        yield server


def hot_setup(server: RedisServer | None, model: SchemaModel, request: ProveRequest) -> HotSetup | None:
    if server is None:
        return None
    text = request.hot_state_text if request.hot_state_text is not None else hot_module_text(model)
    return HotSetup(server.url, text, server.embedded, request.options.lease_seconds)


def new_state(module: ModuleType, client: Any, setup: HotSetup, lease_seconds: int) -> Any:
    """The module's HotState with prove's TTLs for a lease of `lease_seconds`."""
    return module.HotState(
        client,
        running_ttl=max(setup.running_ttl, lease_seconds),
        terminal_ttl=setup.terminal_ttl,
        lease_seconds=lease_seconds,
    )


def worker_hot(w: WorkerContext) -> tuple[ModuleType, Any]:
    """The generated module and a HotState for the task's lease, on this worker's client
    (made on first use, kept per lease length)."""
    setup = w.setup.hot
    assert setup is not None, "a hot-state task on a profile without hot_state.store: redis"
    if w.hot_state is None:
        module = load_hot_module(w.model, setup.module_text)
        w.hot_state = {"module": module, "client": redis_client(setup.url, socket_timeout=2.0)}
    cache: dict[Any, Any] = w.hot_state
    module = cache["module"]
    if w.lease_seconds not in cache:
        cache[w.lease_seconds] = new_state(module, cache["client"], setup, w.lease_seconds)
    return module, cache[w.lease_seconds]


def hold(w: WorkerContext, claim: Row) -> Any:
    """The worker's Holder of a claimed run: Redis for heartbeats and progress, the
    `heartbeat` query (its own transaction) when the durable lease is due."""
    module, hot = worker_hot(w)
    return hot.hold(module.Claim.from_row(claim, claim["lease_token"]), lambda: steps.heartbeat(w, claim))


def work_run(w: WorkerContext, claim: Row, count: int, step_seconds: float, beats: int = 3) -> str:
    """Resume the claimed run from its latest checkpoint and work it to the end with the
    hot projection: each step publishes its progress, heartbeats `beats` times while it
    "works" (`step_seconds`), then commits its checkpoint and event in PostgreSQL.
    Returns completed, lease_lost, cancelled or error."""
    holder = hold(w, claim)
    run = str(claim["run_id"])
    try:
        done = steps.resume_point(w, claim)
        for seq in range(done + 1, count + 1):
            outcome = holder.progress(f"step{seq}", 100 * (seq - 1) // count, {"seq": seq})
            for _ in range(beats):
                if outcome != "ok":
                    break
                steps.pause(step_seconds / beats)
                outcome = holder.beat()
            if outcome != "ok" or not steps.write_step(w, claim, seq):
                w.journal.write("lease_lost", run=run, token=claim["fencing_token"], hot=outcome)
                return "lease_lost" if outcome != "cancelled" else "cancelled"
        return complete(w, claim, holder)
    except Exception as error:  # a query or Redis error: journaled, the run is left to a takeover
        w.journal.write("error", what="hot_step", sqlstate=None, message=str(error)[:300])
        w.reconnect_if_broken()
        return "error"


def complete(w: WorkerContext, claim: Row, holder: Any) -> str:
    """complete_attempt in PostgreSQL first, then the terminal projection."""
    rt = w.runtime(steps.tenant_of(w, claim))
    from psycopg.types.json import Jsonb

    done = rt.call("complete_attempt", **steps.fence(w, claim), result=Jsonb({"by": claim["fencing_token"]}))
    if done is None:
        w.conn.rollback()
        w.journal.write("lease_lost", run=str(claim["run_id"]), token=claim["fencing_token"], hot="complete")
        return "lease_lost"
    w.conn.commit()
    holder.finish("succeeded", done["run_version"])
    w.journal.write("completed", run=str(claim["run_id"]), token=claim["fencing_token"])
    return "completed"


def drain(w: WorkerContext, tenant: Any, count: int, step_seconds: float) -> dict[str, int]:
    """Poll and work runs with the hot projection until the coordinator says stop."""
    counts: dict[str, int] = {"claims": 0, "empty_polls": 0}
    while not w.stop.is_set():
        claim = steps.claim_next(w, tenant)
        if claim is None:
            counts["empty_polls"] += 1
            steps.pause(w.rng.uniform(0.01, 0.04))
            continue
        counts["claims"] += 1
        outcome = work_run(w, claim, count, step_seconds)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


class HotCoordinator:
    """The coordinator's view of Redis: the generated module, a HotState with prove's
    TTLs, and the raw client for what no runtime does (reading TTLs, corrupting a
    projection, losing everything)."""

    def __init__(self, setup: HotSetup, model: SchemaModel) -> None:
        self.setup = setup
        self.module = load_hot_module(model, setup.module_text)
        self.client = redis_client(setup.url)
        self.state = new_state(self.module, self.client, setup, setup.lease_seconds)

    def close(self) -> None:
        self.client.close()

    def keys(self, run_id: Any) -> tuple[str, str, str]:
        found: tuple[str, str, str] = self.module.keys(str(run_id))
        return found

    def read(self, run_id: Any) -> dict[str, str]:
        found: dict[str, str] = self.state.read(str(run_id))
        return found

    def ttl(self, key: str) -> int:
        """Seconds left: -1 no TTL (never expires), -2 no such key."""
        return int(self.client.ttl(key))

    def corrupt(self, run_id: Any, **fields: Any) -> None:
        """Overwrite fields of a run's projection, as a bug or anyone with Redis access could."""
        self.client.hset(self.keys(run_id)[0], mapping={k: str(v) for k, v in fields.items()})

    def lose_everything(self, run_ids: list[Any]) -> None:
        """Redis loses its data, as a restart without persistence would: a throwaway server
        is flushed (keys and scripts); a server given by URL loses only the keys of
        `run_ids` (prove never flushes what is not its own)."""
        if self.setup.embedded:
            self.client.flushall()
            self.client.script_flush()
        else:
            self.forget(run_ids)

    def forget(self, run_ids: list[Any]) -> None:
        """Delete every key of these runs (prove's clean-up)."""
        names = [key for run_id in run_ids for key in self.keys(run_id)]
        for start in range(0, len(names), 500):
            self.client.delete(*names[start : start + 500])


def wait_until(deadline: float) -> None:
    time.sleep(max(0.0, deadline - time.monotonic()))
