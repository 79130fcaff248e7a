"""`agentddl diff --format json` as a typed model: docs/schemas/diff.schema.json is
generated from it (`python -m agentddl.checks.docs`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentddl.checks.core.report.schema import Closed, Envelope
from agentddl.generator.delta.types import Phase, Run, Work


class DiffStep(Closed):
    """One online step of the revision (`Step.as_dict`) and what its lock blocks."""

    number: int = Field(ge=1)
    phase: Phase
    summary: str = Field(description="What the step does, one line.")
    statements: list[str] = Field(description="The SQL as it runs.")
    runs: Run = Field(description="How it runs: one locked transaction, alone, plain, per partition.")
    lock: str | None = Field(description="The strongest table lock it takes, as PostgreSQL names it.")
    tables: list[str] = Field(description="The tables it locks, schema-qualified.")
    rewrites: bool
    scans: bool
    work: Work
    duration: str
    rollback: str = Field(description="How to undo it, one line.")
    handover: Literal["expand", "contract"] | None = Field(description="A role handover's half, else null.")
    blocks_writes: bool
    blocks_reads: bool
    lock_parsed: str | None = Field(description="The lock its SQL takes, read from the statements.")


class DiffRefusal(Closed):
    """A change with no online recipe: why, and the plan to make it by hand."""

    key: str
    change: str
    reason: str
    plan: list[str]


class DiffOutput(Envelope):
    """`agentddl diff --format json`: what a profile change does to a live system."""

    from_: str = Field(alias="from", description="The old profile (or migrations folder, or database).")
    to: str = Field(description="The new profile.")
    changes: list[str] = Field(description="The profile keys that differ, `key: old -> new`.")
    notes: list[str] = Field(description="What the operator does before or after.")
    steps: list[DiffStep]
    refused: list[DiffRefusal]
