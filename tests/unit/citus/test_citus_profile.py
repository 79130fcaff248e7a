"""distribution: {engine: citus}: what Citus cannot do with the rest of a profile is
refused at load, at file:line:column of the key to change, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.generator.errors import AgentDDLError, ProfileError
from agentddl.generator.profile import load_profile, load_profile_text
from agentddl.generator.revision.next import Request, plan_generation

DEFAULT = ROOT / "schemas" / "default.yaml"

HEAD = "profile: 1\nname: scaled\n"

# (profile body, expected "line:column: message" prefix of the error)
REFUSED = {
    "no-tenant-column": (
        "tenancy: {column: null}\ndistribution: {engine: citus}\n",
        "4:24: distribution.engine: citus distributes every table by the tenant column",
    ),
    "pg-partman": (
        "retention: {partition_manager: pg_partman}\ndistribution: {engine: citus}\n",
        "3:32: retention.partition_manager: with distribution.engine citus, partitions are created",
    ),
    "row-level-security": (
        "tenancy: {row_level_security: true}\ndistribution: {engine: citus}\n",
        "3:31: tenancy.row_level_security: the policies read the transaction's tenant from set_config()",
    ),
    "not-colocated": (
        "distribution: {engine: citus, colocate: false}\n",
        "3:41: distribution.colocate: Citus refuses a foreign key between distributed tables",
    ),
    "shards-without-citus": (
        "distribution: {shard_count: 64}\n",
        "3:29: distribution.shard_count: shards exist only with distribution.engine citus",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_combination_citus_cannot_do_is_refused_at_its_key(case: str) -> None:
    body, expected = REFUSED[case]
    with pytest.raises(ProfileError) as caught:
        load_profile_text(HEAD + body, "p.yaml")
    assert str(caught.value).startswith(f"p.yaml:{expected}"), str(caught.value)


def test_shard_count_is_bounded() -> None:
    with pytest.raises(ProfileError, match=r"distribution\.shard_count"):
        load_profile_text(HEAD + "distribution: {engine: citus, shard_count: 1}\n", "p.yaml")


def test_citus_with_a_tenant_column_loads() -> None:
    profile = load_profile_text(HEAD + "distribution: {engine: citus, shard_count: 64}\n", "p.yaml")
    assert profile.distribution.engine == "citus" and profile.distribution.shard_count == 64


def test_distributing_an_existing_schema_is_refused_with_a_plan(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["generate", str(DEFAULT), "--out", str(out)]) == 0
    scaled = tmp_path / "scaled.yaml"
    scaled.write_text(DEFAULT.read_text() + "distribution: {engine: citus}\n")
    with pytest.raises(AgentDDLError, match=r"distribution\.engine: none -> citus: cannot be changed online"):
        plan_generation(Request(load_profile(scaled), out))
    assert sorted(p.name for p in (out / "versions").iterdir() if p.suffix == ".py") == [
        "0001_agentddl_schema.py"
    ]
