"""The generated redis/hot_state.py, written by `agentddl generate` and imported from
disk as a team would, against a real redis-server: fencing in the Lua scripts, TTLs set
with every write, the cancel flag, the terminal write, a projection lost and written
again, Redis unreachable, and the read path that asks PostgreSQL first."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentddl.checks.cli.main import main
from agentddl.checks.db.redis_server import redis_client

HOT_PROFILE = """\
profile: 1
name: hot
schema: agent
hot_state: {store: redis, running_ttl: 2h, terminal_ttl: 10m}
lease: {duration: 30s}
"""


@pytest.fixture(scope="module")
def hot_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """redis/hot_state.py as generated, imported from the output folder."""
    out = tmp_path_factory.mktemp("generated")
    profile = out / "hot.yaml"
    profile.write_text(HOT_PROFILE)
    assert main(["generate", str(profile), "--out", str(out / "out")]) == 0
    spec = importlib.util.spec_from_file_location("hot_state", out / "out" / "redis" / "hot_state.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hot_state"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["hot_state"]


@pytest.fixture
def client(redis_url: str) -> Iterator[Any]:
    found = redis_client(redis_url)
    yield found
    found.close()


def claim(module: ModuleType, run_id: str, fence: int, token: str, tenant: str = "t1") -> Any:
    return module.Claim(run_id, tenant, fence, fence, token)


def new_run() -> str:
    return str(uuid.uuid4())


def test_the_module_carries_the_profiles_settings(hot_state: ModuleType) -> None:
    assert hot_state.KEY_PREFIX == "agent:run:"
    assert (hot_state.RUNNING_TTL, hot_state.TERMINAL_TTL, hot_state.LEASE_SECONDS) == (7200, 600, 30)
    assert hot_state.RENEW_EVERY == 10  # a third of the lease
    assert hot_state.keys("r") == ("agent:run:{r}:state", "agent:run:{r}:lease", "agent:run:{r}:cancel")


def test_a_stale_or_forged_writer_is_refused_and_the_holders_projection_kept(
    hot_state: ModuleType, client: Any
) -> None:
    hot, run = hot_state.HotState(client), new_run()
    old, new = claim(hot_state, run, 1, "a"), claim(hot_state, run, 2, "b")
    assert hot.publish(old, 1, "running", "collect", 10) == "ok"
    assert hot.publish(new, 1, "running", "apply_rules", 65) == "ok"  # a newer claim takes over
    assert hot.publish(old, 99, "running", "late", 70) == "stale"  # however high its write count
    assert hot.renew(old) == "stale"
    assert hot.publish(claim(hot_state, run, 2, "guess"), 2, "running", "x", 1) == "forged"
    assert hot.renew(claim(hot_state, run, 2, "guess")) == "forged"
    assert hot.publish(new, 1, "running", "again", 66) == "stale"  # not a newer write
    found = hot.read(run)
    assert (found["fencing_token"], found["current_step"], found["progress"]) == ("2", "apply_rules", "65")
    assert "b" not in found.values()  # the lease token itself is never stored


def test_every_write_sets_the_ttls_and_heartbeats_renew_them(hot_state: ModuleType, client: Any) -> None:
    hot, run = hot_state.HotState(client, running_ttl=100, lease_seconds=7), new_run()
    state, lease, _ = hot_state.keys(run)
    holder = claim(hot_state, run, 1, "a")
    hot.publish(holder, 1, "running", "s", 1)
    assert 0 < client.ttl(state) <= 100 and 0 < client.ttl(lease) <= 7
    # TTLs taken away (not shortened: a shortened key could expire first on a slow machine)
    client.persist(state)
    client.persist(lease)
    assert (client.ttl(state), client.ttl(lease)) == (-1, -1)
    assert hot.renew(holder) == "ok"
    assert 0 < client.ttl(state) <= 100 and 0 < client.ttl(lease) <= 7


def test_a_cancelled_run_tells_its_holder_at_the_next_heartbeat(hot_state: ModuleType, client: Any) -> None:
    hot, run = hot_state.HotState(client, terminal_ttl=50), new_run()
    renewed: list[int] = []
    holder = hot.hold(claim(hot_state, run, 3, "a"), lambda: renewed.append(1) is None, renew_every=0)
    assert holder.progress("s", 1) == "ok" and renewed == [1]
    hot.cancel(run)
    assert holder.beat() == "cancelled" and holder.progress("s", 2) == "cancelled"
    state, lease, cancel = hot_state.keys(run)
    assert hot.read(run)["status"] == "cancelled"
    assert client.exists(lease) == 0 and 0 < client.ttl(state) <= 50 and 0 < client.ttl(cancel) <= 50
    assert renewed == [1]  # no durable renewal for a run that is no longer the holder's


def test_the_terminal_write_is_final_and_short_lived(hot_state: ModuleType, client: Any) -> None:
    hot, run = hot_state.HotState(client, terminal_ttl=40), new_run()
    holder = hot.hold(claim(hot_state, run, 1, "a"), lambda: True)
    holder.progress("last", 99)
    holder.finish("succeeded", 12)
    state, lease, _ = hot_state.keys(run)
    assert hot.read(run)["status"] == "succeeded" and hot.read(run)["run_version"] == "12"
    assert client.exists(lease) == 0 and 0 < client.ttl(state) <= 40
    assert holder.progress("again", 1) == "lost"  # terminal: refused, the worker stops


def test_a_lost_projection_is_written_again_by_the_next_heartbeat(hot_state: ModuleType, client: Any) -> None:
    hot, run = hot_state.HotState(client), new_run()
    holder = hot.hold(claim(hot_state, run, 4, "a"), lambda: True)
    assert holder.progress("normalize", 40) == "ok"
    client.delete(*hot_state.keys(run))
    client.script_flush()  # a restarted Redis has no scripts either
    assert hot.renew(holder.claim) == "missing"
    assert holder.beat() == "ok"
    assert hot.read(run)["current_step"] == "normalize" and hot.read(run)["fencing_token"] == "4"


def test_durable_lease_renewed_on_its_cadence_even_without_redis(hot_state: ModuleType) -> None:
    """Redis unreachable costs the projection only: the durable lease is still renewed
    every third of the lease, and a failed renewal is a lost run."""
    dead = hot_state.HotState(redis_client("redis://127.0.0.1:9/0", socket_connect_timeout=0.2))
    now = [0.0]
    results = iter([True, True, False])
    renewed_at: list[float] = []

    def renew() -> bool:
        renewed_at.append(now[0])
        return next(results)

    holder = dead.hold(claim(hot_state, new_run(), 1, "a"), renew, clock=lambda: now[0])
    outcomes = []
    for _ in range(9):
        now[0] += 4
        outcomes.append(holder.beat())
    assert dead.read("x") == {}
    assert renewed_at == [12, 24, 36]  # 30 s lease: due every 10 s, whatever Redis does
    assert outcomes == ["ok"] * 8 + ["lost"]


def test_view_reads_postgres_first_and_shows_only_this_claims_projection(
    hot_state: ModuleType, client: Any
) -> None:
    """The loader stands for get_run with the caller's tenant (prove's hot_tenant_read
    runs the real query on PostgreSQL): it is asked first, every time, and decides."""
    hot, run = hot_state.HotState(client), new_run()
    hot.publish(claim(hot_state, run, 5, "a", tenant="t1"), 1, "running", "draft", 80)
    row = {"run_id": run, "tenant_id": "t1", "status": "running", "fencing_token": 5}
    touched: list[str] = []

    def loader(found: dict[str, Any] | None) -> Any:
        return lambda: touched.append("pg") or found

    assert hot.view("t2", run, loader(None)) is None  # another tenant: PostgreSQL says no
    assert hot.view("t2", run, loader(row)) is None  # a loader without the tenant predicate
    shown = hot.view("t1", run, loader(row))
    assert shown["hot"]["current_step"] == "draft" and shown["hot"]["live"] is True
    assert hot.view("t1", run, loader({**row, "fencing_token": 6}))["hot"] is None  # an older claim's
    assert hot.view("t1", run, loader({**row, "status": "succeeded"}))["hot"] is None  # terminal: the row
    client.hset(hot_state.keys(run)[0], "tenant", "t2")
    assert hot.view("t1", run, loader(row))["hot"] is None  # a projection naming another tenant
    assert touched == ["pg"] * 6


def test_the_lua_files_are_the_modules_scripts(tmp_path: Path) -> None:
    profile = tmp_path / "hot.yaml"
    profile.write_text(HOT_PROFILE)
    assert main(["generate", str(profile), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "redis"
    module = (folder / "hot_state.py").read_text()
    for name in ("fenced_update", "renew_lease", "cancel"):
        assert (folder / f"{name}.lua").read_text() in module
    assert main(["generate", str(profile), "--out", str(tmp_path / "out"), "--check"]) == 0
    (folder / "cancel.lua").write_text("-- edited\n")
    assert main(["generate", str(profile), "--out", str(tmp_path / "out"), "--check"]) == 1
