"""The model decides, render renders: the decisions the renderers (and the checks) read
live on SchemaModel, each made in one place; PL/pgSQL bodies are .sql package data."""

from __future__ import annotations

import re
import string
from importlib.resources import files
from pathlib import Path

import pytest
from profiles import ROOT

from agentddl.generator.model import derive
from agentddl.generator.model.distribution import shard_count
from agentddl.generator.profile import load_profile_text
from agentddl.generator.sqltemplate import SqlTemplate, render_sql

HEAD = "profile: 1\nname: decided\n"
RENDER = ROOT / "generator" / "render"
# Profile fields the model turns into decisions: a renderer reads the decision, never these.
DECIDED_FIELDS = re.compile(r"profile\.(lock_strategy|tenancy|distribution|model\.|hot_state\.store)")


@pytest.mark.parametrize(
    ("body", "distributed", "within"),
    [
        ("", False, False),
        ("distribution: {engine: citus}\n", True, True),
        ("tenancy: {row_level_security: true}\n", False, True),
        ("tenancy: {column: null}\n", False, False),
    ],
)
def test_distribution_and_claim_scope_are_decided_once(body: str, distributed: bool, within: bool) -> None:
    model = derive(load_profile_text(HEAD + body, "p.yaml"))
    assert model.is_distributed is distributed
    assert model.claims_within_tenant is within


def test_the_distributed_tables_carry_the_tenant_and_the_rest_are_reference_tables() -> None:
    model = derive(load_profile_text(HEAD + "distribution: {engine: citus, shard_count: 64}\n", "p.yaml"))
    assert model.distributed_tables[0].name == "runs"
    assert [t.name for t in model.reference_tables] == ["tenants"]
    assert model.shard_count == 64 and model.shard_count_chosen
    assert {t.name for t in model.distributed_tables} | {"tenants"} == {t.name for t in model.tables}


def test_shard_count_from_the_volume_is_a_power_of_two_in_bounds() -> None:
    for steps in (1, 1_000, 5_000):
        profile = load_profile_text(
            HEAD + f"volume: {{steps_per_second: {steps}}}\ndistribution: {{engine: citus}}\n", "p.yaml"
        )
        count = shard_count(profile)
        assert 32 <= count <= 256 and count & (count - 1) == 0


def test_no_renderer_reads_a_decided_profile_field() -> None:
    readers = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted(RENDER.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DECIDED_FIELDS.search(line)
    ]
    assert readers == []


def _templates() -> list[str]:
    folder = files("agentddl.generator.templates")
    return sorted(p.name.removesuffix(".sql") for p in folder.iterdir() if p.name.endswith(".sql"))


@pytest.mark.parametrize("name", _templates())
def test_every_template_is_used_and_names_its_placeholders(name: str) -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "generator").rglob("*.py"))
    assert f'"{name}"' in sources, f"templates/{name}.sql is used nowhere"
    text = (files("agentddl.generator.templates") / f"{name}.sql").read_text(encoding="utf-8")
    placeholders = {m.group("named") or m.group("braced") for m in SqlTemplate.pattern.finditer(text)}
    assert placeholders and None not in placeholders, placeholders


def test_a_missing_value_fails_loudly() -> None:
    with pytest.raises(KeyError, match="qschema"):
        render_sql("forbid_update")
    assert isinstance(SqlTemplate("@x"), string.Template)


def test_the_templates_ship_as_package_data() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"agentddl.generator.templates" = ["*.sql"]' in text
    assert '"agentddl.generator.templates",' in text
    assert Path(str(files("agentddl.generator.templates") / "partition_steps.sql")).is_file()
