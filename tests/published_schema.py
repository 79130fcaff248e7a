"""A command's published JSON Schema (docs/schemas/<command>.schema.json) as a consumer
downloads it: read from the checked-in file and checked to be a valid 2020-12 schema,
not built from the models it is generated from."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from agentddl.checks.docs.schemas import schema_path

ROOT = Path(__file__).resolve().parents[1]


def published(name: str) -> jsonschema.Draft202012Validator:
    """A validator of the checked-in schema of `name` (itself checked first)."""
    schema = json.loads((ROOT / schema_path(name)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)
