"""What one `agentddl trace` run found: every statement's trace, the findings judged from
them, the workload's numbers. Plain data: `report.build_report(result)` is what the
reporters print."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentddl.checks.core.findings import Finding
from agentddl.checks.trace.types import StatementTrace, Throughput


@dataclass
class TraceResult:
    """Every statement's trace, the findings judged from them, and the workload's numbers."""

    server_version: int
    statements: list[StatementTrace] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    throughput: Throughput | None = None
    existing: set[str] = field(default_factory=set)  # relations that existed before the migration
    sources: dict[str, str] = field(default_factory=dict)  # migration file -> its text
