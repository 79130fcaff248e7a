"""The JSON every command prints carries `schema_version`, and its published JSON Schema
(docs/schemas/<command>.schema.json) holds consumers to it: the shared finding shape is
`Finding.as_dict()`'s, lint's findings keep `rule` (deprecated) beside `name`, and a
document whose keys were renamed, dropped or added is rejected by the `jsonschema`
validator. Real runs of every command are validated in
tests/integration/test_output_consistency.py; here, the lint CLI (no database) and
reports rendered by the real JSON reporter."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from published_schema import published

from agentddl.checks.cli.main import main
from agentddl.checks.core.findings import Finding
from agentddl.checks.core.report import Report, render
from agentddl.checks.core.report.json_format import SCHEMA_VERSION
from agentddl.checks.core.report.schema import Envelope, FindingOut, json_schema
from agentddl.checks.docs.schemas import FILES, OUTPUTS

ROOT = Path(__file__).resolve().parents[2]
UNSAFE = ROOT / "tests" / "fixtures" / "lint" / "require-concurrent-index-creation" / "unsafe.sql"
AT_LINE = Finding("ADL101", "x-rule", "error", "Locks t.", "Do y.", file="m/1.sql", line=4, column=3)
ON_OBJECT = Finding("ADV105", "y-rule", "warning", "No key.", "Add one.", object="public.notes")


def rendered(report: Report) -> dict[str, Any]:
    out = io.StringIO()
    render(report, "json", out)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def problems(name: str, document: dict[str, Any]) -> list[str]:
    return sorted(f"{e.json_path}: {e.message}" for e in published(name).iter_errors(document))


@pytest.mark.parametrize("name", [*OUTPUTS, *FILES])
def test_every_published_schema_is_a_valid_2020_12_schema(name: str) -> None:
    schema = published(name).schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    if name in OUTPUTS:
        assert schema["properties"]["tool"] == {"const": name, "type": "string"}
        assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
        assert list(schema["required"])[:2] == ["tool", "schema_version"]
        assert schema["additionalProperties"] is False


def test_the_finding_model_is_finding_as_dict() -> None:
    assert list(FindingOut.model_fields) == list(AT_LINE.as_dict())


def test_schema_version_is_major_dot_minor_and_documented() -> None:
    assert re.fullmatch(r"[1-9][0-9]*\.[0-9]+", SCHEMA_VERSION)
    output = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    assert f'"schema_version": "{SCHEMA_VERSION}"' in output
    for name in OUTPUTS:
        assert f"(schemas/{name}.schema.json)" in output, f"docs/output.md links {name}'s schema"


def test_lint_cli_json_has_the_version_and_the_deprecated_rule_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", str(UNSAFE), "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert list(document)[:2] == ["tool", "schema_version"]
    assert document["schema_version"] == SCHEMA_VERSION
    assert document["findings"] and all(f["rule"] == f["name"] for f in document["findings"])
    assert problems("lint", document) == []
    # what broke the scorer: a finding's key renamed (and the alias gone) is rejected
    renamed = copy.deepcopy(document)
    finding = renamed["findings"][0]
    finding["rule_name"] = finding.pop("name")
    del finding["rule"]
    assert problems("lint", renamed) == [
        "$.findings[0]: 'name' is a required property",
        "$.findings[0]: 'rule' is a required property",
        "$.findings[0]: Additional properties are not allowed ('rule_name' was unexpected)",
    ]


def test_only_lint_keeps_the_rule_alias() -> None:
    lint = rendered(Report("lint", [AT_LINE], about={"files": 1}))
    verify = rendered(Report("verify", [ON_OBJECT], about={"database": "h:5432/d", "profile": None}))
    assert list(lint["findings"][0]) == [*AT_LINE.as_dict(), "rule"]
    assert list(verify["findings"][0]) == list(ON_OBJECT.as_dict())
    assert problems("lint", lint) == [] and problems("verify", verify) == []


def test_a_key_no_model_declares_or_a_wrong_version_is_rejected() -> None:
    document = rendered(Report("verify", [ON_OBJECT], about={"database": "h:5432/d", "profile": None}))
    assert problems("verify", {**document, "budget": 3}) == [
        "$: Additional properties are not allowed ('budget' was unexpected)"
    ]
    assert problems("verify", {**document, "schema_version": "2.0"}) == [
        f"$.schema_version: '{SCHEMA_VERSION}' was expected"
    ]
    apply = rendered(Report("apply", [], about={"profile": "default"}))
    assert "$: 'tables' is a required property" in problems("apply", apply)


def test_a_new_command_without_keys_of_its_own_is_one_line_envelope() -> None:
    """`"future": Envelope` in OUTPUTS: its documents validate, another command's do not."""
    validator = jsonschema.Draft202012Validator(json_schema(Envelope, "future", tool="future"))
    document = rendered(Report("future", [AT_LINE, ON_OBJECT]))
    assert list(validator.iter_errors(document)) == []
    assert not validator.is_valid({**document, "tool": "lint"})
    assert not validator.is_valid(rendered(Report("future", [], about={"files": 1})))
