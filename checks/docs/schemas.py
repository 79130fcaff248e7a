"""The published JSON Schemas: one per command that prints `--format json`
(docs/schemas/<command>.schema.json), and the audit baseline's, generated from the typed
output models. A new command with JSON output is one line in `OUTPUTS`: its model (a
subclass of `core.report.schema.Envelope` with the command's own keys, or `Envelope`
itself while it has none); tests/integration/test_output_consistency.py validates each
command's real output against its file and fails for a command missing here."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from agentddl.checks.audit.output import AuditBaseline, AuditOutput
from agentddl.checks.bench.output import BenchOutput
from agentddl.checks.core.report.schema import json_schema
from agentddl.checks.diff.output import DiffOutput
from agentddl.checks.gate.output import CheckOutput
from agentddl.checks.lint.output import LintOutput
from agentddl.checks.prove.output import ProveOutput
from agentddl.checks.trace.output import TraceOutput
from agentddl.checks.verify.output import ApplyOutput, VerifyOutput

SCHEMA_DIR = "docs/schemas"
OUTPUTS: dict[str, type[BaseModel]] = {
    "lint": LintOutput,
    "verify": VerifyOutput,
    "apply": ApplyOutput,
    "trace": TraceOutput,
    "audit": AuditOutput,
    "prove": ProveOutput,
    "bench": BenchOutput,
    "diff": DiffOutput,
    "check": CheckOutput,
}
# Files a command writes, with their schema's title.
FILES: dict[str, tuple[type[BaseModel], str]] = {
    "audit-baseline": (AuditBaseline, "agentddl audit --baseline FILE"),
}


def schema_path(name: str) -> str:
    """Where `name`'s schema is published, relative to the repository root."""
    return f"{SCHEMA_DIR}/{name}.schema.json"


def schema_of(name: str) -> dict[str, Any]:
    """The JSON Schema of a command's output (or of a file in FILES)."""
    if name in OUTPUTS:
        return json_schema(OUTPUTS[name], f"agentddl {name} --format json", tool=name)
    return json_schema(*FILES[name])


def schema_files() -> dict[str, str]:
    """Path -> text of every published schema."""
    return {
        schema_path(name): json.dumps(schema_of(name), indent=2, ensure_ascii=False) + "\n"
        for name in (*OUTPUTS, *FILES)
    }
