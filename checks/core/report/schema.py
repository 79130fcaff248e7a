"""The JSON output's shared envelope as typed models, from which each command's JSON Schema
(docs/schemas/<command>.schema.json) is generated.

A command's output model subclasses `Envelope` and adds its own keys (`about` and
`details` of its `Report`); its schema fixes `tool` to the command's name. Objects are closed
(`additionalProperties: false`) unless a model says otherwise, so a key added or renamed
without its model fails the output tests instead of surprising a consumer. A key that is
absent when it does not apply is typed `T | SkipJsonSchema[None] = None` (optional, never
null); a key that is always present and null when it does not apply is `T | None` without
a default (required, nullable).

pydantic is imported here only: the JSON reporter (`json_format`) does not need it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue

from agentddl.checks.core.findings import Severity
from agentddl.checks.core.report.json_format import SCHEMA_VERSION

DIALECT = "https://json-schema.org/draft/2020-12/schema"
HEAD = ("tool", "schema_version")  # the first keys of every document, in this order
TAIL = ("findings", "summary")  # and its last


class Closed(BaseModel):
    """An object with exactly the declared keys."""

    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    """An object with the declared keys and possibly more (figures that grow)."""

    model_config = ConfigDict(extra="allow")


class FindingOut(Closed):
    """One finding, the same shape in every command (`Finding.as_dict`): every key present,
    null when it does not apply."""

    code: str = Field(description="Stable rule code, e.g. ADL101 (its page: docs/rules/).")
    name: str = Field(description="The rule's kebab-case name.")
    severity: Severity
    file: str | None = Field(description="Source file of a finding at a source position.")
    line: int | None = Field(ge=1, description="1-based line in `file`.")
    column: int | None = Field(ge=1, description="1-based column in `file`.")
    object: str | None = Field(description="Schema-qualified database object the finding is about.")
    message: str = Field(description="The consequence, one sentence.")
    fix: str = Field(description="The action, one sentence.")


class Summary(Closed):
    """Findings per severity."""

    error: int = Field(ge=0)
    warning: int = Field(ge=0)
    info: int = Field(ge=0)


class Envelope(Closed):
    """What every command's JSON document holds; a command's model adds its own keys."""

    tool: str = Field(description="The command that printed the document.")
    schema_version: str = Field(
        json_schema_extra={"const": SCHEMA_VERSION},
        description="Version of the output format, MAJOR.MINOR: the minor grows when a key is added, "
        "the major only for a breaking change.",
    )
    findings: Sequence[FindingOut] = Field(description="In the same order on every run.")
    summary: Summary


class _Generator(GenerateJsonSchema):
    """No `title` on every property (pydantic's repeats each key's name) and no `default`
    (a document has no defaults: an optional key is absent), descriptions on one line."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def default_schema(self, schema: Any) -> JsonSchemaValue:
        found = super().default_schema(schema)
        found.pop("default", None)
        return found

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        found: JsonSchemaValue = _one_line(super().generate(schema, mode))
        return found


def _one_line(node: Any) -> Any:
    """`node` with every description's line breaks (a wrapped docstring's) made spaces."""
    if isinstance(node, dict):
        return {
            key: " ".join(value.split())
            if key == "description" and isinstance(value, str)
            else _one_line(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_one_line(item) for item in node]
    return node


def json_schema(model: type[BaseModel], title: str, tool: str | None = None) -> dict[str, Any]:
    """`model`'s JSON Schema (draft 2020-12), its top-level properties in the order a
    document prints them: `tool` (the command's name, when given), `schema_version`, the
    command's own keys, `findings`, `summary`."""
    generated = model.model_json_schema(schema_generator=_Generator)
    properties: dict[str, Any] = generated.pop("properties")
    if tool is not None:
        properties["tool"] = {"const": tool, "type": "string"}
    first = [key for key in HEAD if key in properties]
    last = [key for key in TAIL if key in properties]
    order = first + [key for key in properties if key not in (*first, *last)] + last
    required = set(generated.pop("required", []))
    generated.pop("title", None)
    return {
        "$schema": DIALECT,
        "title": title,
        "description": generated.pop("description", ""),
        "type": generated.pop("type"),
        "properties": {key: properties[key] for key in order},
        "required": [key for key in order if key in required],
        "additionalProperties": generated.pop("additionalProperties"),
        **generated,
    }
