"""`agentddl audit --format json` and the plan baseline (`--baseline FILE`), as typed
models: docs/schemas/audit.schema.json and audit-baseline.schema.json are generated from
them (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agentddl.checks.audit.baseline import BASELINE_VERSION
from agentddl.checks.core.report.schema import Closed, Envelope


class AuditSeed(Closed):
    """How the scratch database was seeded (absent when the caller seeded it)."""

    rows: dict[str, int] = Field(description="Rows per table.")
    rows_per_second: int = Field(ge=0)
    seconds: float


class AuditInPlace(Closed):
    """audit --dsn: what was audited in place, and what judged the what-if questions."""

    target: str = Field(description="host:port/dbname")
    schema_: str = Field(alias="schema")
    redundancy: str = Field(description='What judged "redundant for the workload" (empty: not judged).')
    suggestions: str = Field(description="What verified the suggested indexes.")
    note: str = Field(description="Why a what-if method was missing (empty: none was).")


class AuditPath(Closed):
    """One access path's verdict and plan."""

    name: str
    origin: str = Field(description='Where the path came from: "queries.sql", "fk", "file.sql:LINE", ...')
    kind: str = Field(description="read, write, claim, maintenance, health, constraint, user, stats")
    table: str | None
    declared: str | None = Field(description="The index that should serve it (null: no expectation).")
    passed: bool
    node: str | None = Field(description="The plan's main node on the path's table (null: not planned).")
    cost: float | None = Field(description="The plan's estimated total cost.")
    rows: float | None = Field(description="The plan's row estimate.")
    indexes: list[str] = Field(description="The indexes the plan reads.")
    actual_ms: float | None = Field(description="Execution time under EXPLAIN ANALYZE.")
    buffers: int | None = Field(description="Shared blocks hit and read under EXPLAIN ANALYZE.")
    findings: list[str] = Field(description="Codes of the path's findings.")
    method: str | None = Field(description="How it was planned.")
    written: str | None = Field(description="In place: the write whose read part was planned.")
    calls: int | None = Field(description="pg_stat_statements' calls (--from-stats).")
    total_ms: float | None
    mean_ms: float | None


class AuditSuggestion(Closed):
    """An index suggested for a failing path, and what verified it."""

    path: str
    table: str
    ddl: str
    reason: str
    verified: bool | None = Field(
        description="true: the planner uses it and the plan passes; null: unchecked."
    )
    cost_before: float | None
    cost_after: float | None
    node_after: str | None
    remaining: str | None = Field(description="The plan error left when the index is used.")
    method: str = Field(description='"hypopg", "clone", "hypopg + clone" (empty: unchecked).')
    ms_before: float | None = Field(description="Timed in the scratch clone, before the build.")
    ms_after: float | None


class AuditOutput(Envelope):
    """`agentddl audit --format json`: every access path's plan and verdict."""

    server_version: int = Field(description="PostgreSQL major of the server audited.")
    passed: bool = Field(description="Every path is served.")
    seconds: float
    hypopg: bool = Field(description="Suggestions were verified with hypothetical indexes.")
    in_place: AuditInPlace | SkipJsonSchema[None] = None
    seed: AuditSeed | SkipJsonSchema[None] = None
    paths: list[AuditPath]
    suggestions: list[AuditSuggestion]


class BaselinePlan(Closed):
    """A path's stored plan."""

    node: str
    indexes: list[str] = Field(description="Root index names the plan read.")
    cost: float


class AuditBaseline(Closed):
    """The plan baseline `agentddl audit --baseline FILE` writes when FILE is missing (or
    with --update-baseline) and compares a later run with. Baselines written by agentddl
    0.1.0 have no `schema_version`: they are read as 1.0."""

    baseline: Literal[1] = Field(description="Marks the file as an agentddl audit baseline.")
    schema_version: str = Field(
        json_schema_extra={"const": BASELINE_VERSION},
        description="Version of the baseline format, MAJOR.MINOR (its own, not the report's).",
    )
    server_version: int
    queries: list[str] = Field(
        default_factory=list,
        description="The query files the workload came from, relative to the baseline's folder.",
    )
    paths: dict[str, BaselinePlan] = Field(description="Each planned path's plan, by the path's name.")
