"""`agentddl check --format json` as a typed model: docs/schemas/check.schema.json is
generated from it (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.core.report.schema import Closed, Envelope, FindingOut, Summary


class CheckStep(Closed):
    """One step of the gate: its verdict and, when it ran, the family's own report (the
    `about` and `details` that command prints with --format json, its counts and findings)."""

    step: Literal["lint", "trace", "verify", "audit"]
    verdict: Literal["held", "failed", "skipped"]
    summary: str = Field(description="The step's closing line, or why it was skipped.")
    about: dict[str, Any] | SkipJsonSchema[None] = None
    details: dict[str, Any] | SkipJsonSchema[None] = None
    counts: Summary | SkipJsonSchema[None] = None
    findings: list[FindingOut] | SkipJsonSchema[None] = None


class CheckOutput(Envelope):
    """`agentddl check --format json`: the CI gate's verdict per step; `findings` holds
    every step's, errors first."""

    migrations: list[str] = Field(description="The migration files checked.")
    changed_since: str | SkipJsonSchema[None] = Field(None, description="With --changed-since: the ref.")
    clone: str | SkipJsonSchema[None] = Field(None, description="With --clone: host:port/dbname.")
    baseline: str | SkipJsonSchema[None] = Field(None, description="With --baseline: the file.")
    steps: list[CheckStep]
