"""What `agentddl verify` and `agentddl apply` found. Plain data: `report.build_report`
and `report.build_apply_report` turn them into the core Report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentddl.checks.core.findings import Finding


@dataclass(frozen=True)
class VerifyResult:
    findings: list[Finding]
    about: dict[str, Any] = field(default_factory=dict)  # what was verified


@dataclass(frozen=True)
class ApplyResult:
    about: dict[str, Any]  # profile, schema, server, server_version, kept databases
    tables: list[dict[str, Any]]  # per declared table: constraints, indexes, partitions
    findings: list[Finding]
