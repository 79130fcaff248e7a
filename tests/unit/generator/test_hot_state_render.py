"""The Redis side of a profile (`hot_state`): validation at the key, nothing rendered
without it, and with it redis/ (key layout, Lua scripts, the redis-py module, README) and
PLAN.md's hot-state section, deterministic and following the profile."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from profiles import example_profiles

from agentddl.checks.cli.main import main
from agentddl.generator.artifacts import render_artifacts
from agentddl.generator.errors import ProfileError
from agentddl.generator.model import derive
from agentddl.generator.profile import Profile, load_profile_text
from agentddl.generator.render.hot import render_hot_files, runtime
from agentddl.generator.render.plan import render_plan

HOT = "profile: 1\nname: hot\nschema: flows\nhot_state: {store: redis, running_ttl: 6h, terminal_ttl: 15m}\n"


def hot_profile(text: str = HOT) -> Profile:
    return load_profile_text(text, "hot.yaml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "profile: 1\nname: x\nhot_state: {store: memcached}\n",
            "hot.yaml:3:20: hot_state.store: expected 'redis' or 'none', got 'memcached'",
        ),
        (
            "profile: 1\nname: x\nhot_state: {store: redis, running_ttl: 1 day}\n",
            "hot.yaml:3:40: hot_state.running_ttl: expected a duration like 30d, 12h, 15m or 60s",
        ),
        (
            "profile: 1\nname: x\nlease: {duration: 2m}\nhot_state:\n  store: redis\n  running_ttl: 90s\n",
            "hot.yaml:6:16: hot_state.running_ttl: 90s is shorter than lease.duration (2m)",
        ),
        (
            "profile: 1\nname: x\nhot_state: {store: redis, ttl: 1h}\n",
            "hot.yaml:3:27: hot_state.ttl: unknown key",
        ),
    ],
)
def test_a_bad_hot_state_is_refused_at_its_key(text: str, expected: str) -> None:
    with pytest.raises(ProfileError) as raised:
        hot_profile(text)
    assert expected in str(raised.value)


def test_a_short_running_ttl_is_fine_when_redis_is_off() -> None:
    profile = hot_profile("profile: 1\nname: x\nhot_state: {running_ttl: 10s}\n")
    assert profile.hot_state.store == "none"


@pytest.mark.parametrize("name", ["default", "single-tenant"])
def test_no_redis_side_without_the_hot_store(name: str) -> None:
    profile = example_profiles()[name]
    files = render_artifacts(profile)
    assert not [path for path in files if path.startswith("redis/")]
    assert "Hot state" not in files["PLAN.md"]


def test_the_redis_side_is_rendered_deterministically() -> None:
    files = render_artifacts(hot_profile())
    redis = {path: text for path, text in files.items() if path.startswith("redis/")}
    assert sorted(redis) == [
        "redis/README.md",
        "redis/cancel.lua",
        "redis/fenced_update.lua",
        "redis/hot_state.py",
        "redis/renew_lease.lua",
    ]
    assert render_artifacts(hot_profile()) == files
    for name, script in runtime.SCRIPTS.items():
        assert redis[f"redis/{name}.lua"] == script
        assert script in redis["redis/hot_state.py"]


def test_the_module_carries_the_profile_and_nothing_of_agentddl() -> None:
    text = render_hot_files(derive(hot_profile()))["redis/hot_state.py"]
    tree = ast.parse(text)
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    assert "agentddl" not in imported  # a team copies redis/ into its runtime
    assert 'KEY_PREFIX = "flows:run:"' in text
    assert "RUNNING_TTL = 21600" in text and "TERMINAL_TTL = 900" in text and "LEASE_SECONDS = 60" in text
    assert 'TENANT_COLUMN: str | None = "tenant_id"' in text
    assert "# agentddl:settings" not in text
    single = hot_profile(HOT + "tenancy: {column: null}\n")
    assert "TENANT_COLUMN: str | None = None" in render_hot_files(derive(single))["redis/hot_state.py"]


def test_plan_places_durable_state_in_postgres_and_the_projection_in_redis() -> None:
    plan = render_plan(derive(hot_profile()))
    section = plan[plan.index("## 6. Hot state: PostgreSQL and Redis") :]
    for needle in (
        "`flows:run:{<run_id>}:state` hash",
        "the holder renews it with `heartbeat` every 20 seconds",
        "`get_run` in PostgreSQL with the caller's tenant first",
        "| Redis lost (flush, restart, failover without replication) | unchanged | empty |",
        "`maxmemory-policy volatile-ttl`",
    ):
        assert needle in section, needle
    changed = render_plan(derive(hot_profile()), "## 6. Changes from the previous profile\n\nx")
    assert "## 6. Changes from the previous profile" in changed and "## 7. Hot state" in changed


def test_generate_writes_redis_and_check_sees_it_stale(tmp_path: Path) -> None:
    profile = tmp_path / "hot.yaml"
    profile.write_text(HOT)
    out = tmp_path / "out"
    assert main(["generate", str(profile), "--out", str(out)]) == 0
    assert (out / "redis" / "hot_state.py").is_file()
    assert main(["generate", str(profile), "--out", str(out), "--check"]) == 0
    (out / "redis" / "README.md").unlink()
    assert main(["generate", str(profile), "--out", str(out), "--check"]) == 1
