"""Generation is deterministic across processes, not only within one: `agentddl generate`
run in two interpreters with different PYTHONHASHSEED values (so every set of strings
iterates in another order) writes byte-identical trees. test_artifacts.py renders twice
in one process, where the hash seed is the same both times and an order that comes from
iterating a set would go unnoticed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from profiles import ROOT

AGENTDDL = Path(sys.executable).with_name("agentddl")
HASH_SEEDS = ("0", "12345")
# The optional parts at once: another schema and tenant column with row-level security,
# advisory locks, the hot projection in Redis (redis/*), own role names, the model's parts.
EVERY_PART = """\
profile: 1
name: every_part
engine: {version: 18}
schema: wf_x
tenancy: {column: org_id, type: text, row_level_security: true}
volume: {steps_per_second: 2000, runs_per_day: 2000000, events_per_step: 3}
retention: {events: 7d, checkpoints: 3d, outbox_delivered: 1d, runs: 90d, runway: 7}
lock_strategy: advisory
hot_state: {store: redis}
roles: {owner: o_x, app: a_x, relay: r_x, readonly: ro_x}
model: {nodes: true, approvals: true, sessions: true, notes: true, details: true}
"""
PROFILES = {
    "default": ROOT / "schemas" / "default.yaml",
    "partman": ROOT / "schemas" / "examples" / "partman.yaml",  # pg_partman's configuration
    "every-part": None,  # EVERY_PART, written for the test
}


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_hash_seeds_change_the_order_of_a_set() -> None:
    """The test's teeth: the two seeds do order a set of strings differently."""
    probe = "print(list({'runs', 'events', 'attempts', 'checkpoints', 'outbox', 'tenants'}))"
    orders = {
        subprocess.run(
            [sys.executable, "-c", probe],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for seed in HASH_SEEDS
    }
    assert len(orders) == 2, orders


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_generate_under_other_hash_seeds_writes_identical_files(tmp_path: Path, name: str) -> None:
    profile = PROFILES[name]
    if profile is None:
        profile = tmp_path / "every_part.yaml"
        profile.write_text(EVERY_PART, encoding="utf-8")
    runs = {
        seed: subprocess.Popen(
            [str(AGENTDDL), "generate", str(profile), "--out", str(tmp_path / f"seed-{seed}")],
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in HASH_SEEDS
    }
    for seed, process in runs.items():
        _out, err = process.communicate(timeout=300)
        assert process.returncode == 0, f"PYTHONHASHSEED={seed}: {err[-2000:]}"
    first, second = (tree(tmp_path / f"seed-{seed}") for seed in HASH_SEEDS)
    assert {"schema.sql", "queries.sql", "PLAN.md"} <= set(first)
    assert name != "every-part" or "redis/hot_state.py" in first
    assert sorted(first) == sorted(second)
    differing = [path for path in first if first[path] != second[path]]
    assert differing == [], f"PYTHONHASHSEED {HASH_SEEDS} wrote different {differing}"
