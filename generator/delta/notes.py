"""What the operator does around a delta revision, per profile change: deploys before
it, effects after it, and the changes that touch no schema object at all."""

from __future__ import annotations

from typing import Any

from agentddl.generator.model import SchemaModel
from agentddl.generator.profile.units import parse_duration, parse_size


def operator_notes(
    old: SchemaModel, new: SchemaModel, changes: dict[str, tuple[Any, Any]]
) -> tuple[str, ...]:
    notes: list[str] = []
    for key, (before, after) in changes.items():
        note = _note(key, before, after, new)
        if note and note not in notes:
            notes.append(note)
    notes += _partition_notes(old, new)
    return tuple(notes)


def _note(key: str, before: Any, after: Any, new: SchemaModel) -> str | None:
    section = key.split(".")[0]
    if section == "retention":
        return _retention_note(key, before, after)
    if section in ("lock_strategy", "lease", "payload", "hot_state"):
        return _runtime_note(key, before, after)
    if key == "engine.version":
        return (
            f"Before: the server runs PostgreSQL {after} or newer (the revision uses what {after} offers)."
            if after > before
            else None
        )
    if key == "tenancy.row_level_security":
        return (
            "Before: deploy workers that run `SET agentddl.tenant = '<tenant>'` in each transaction "
            "(harmless while RLS is off); after the upgrade the app role sees only that tenant's rows."
            if after
            else "After: the app role sees every tenant's rows again; tenant isolation is the application's."
        )
    if key == "tenancy.on_tenant_delete":
        effect = "removes its runs" if after == "cascade" else "is refused while it has runs"
        return f"After: deleting a tenant {effect}."
    if section == "roles":
        return (
            "After: grant the new roles to login roles created from now on; the old roles stay "
            "(roles are cluster-wide) with no privileges on this schema: drop them when no database "
            "uses them."
        )
    return None  # name, volume: their effects are in the steps and partition notes


def _retention_note(key: str, before: Any, after: Any) -> str | None:
    if key in ("retention.events", "retention.checkpoints"):
        what = key.split(".")[1]
        if _seconds(after) < _seconds(before):
            return (
                f"After: the next maintain_partitions() run drops {what} partitions older than "
                f"{after}: export what must be kept first."
            )
        return f"After: {what} are kept {after}; partitions dropped before the change do not come back."
    if key in ("retention.runs", "retention.outbox_delivered"):
        return (
            f"No schema change for {key}: the purge queries in queries.sql use {after} from their next run."
        )
    if key == "retention.runway":
        return f"After: maintenance keeps {after} partitions ahead from its next run."
    if key == "retention.scheduler":
        return f"No schema change for {key}: schedule the maintenance with {after} (PLAN.md, section 4)."
    return None


def _runtime_note(key: str, before: Any, after: Any) -> str | None:
    """lock_strategy, lease, payload and hot_state: what changes for the workers."""
    section = key.split(".")[0]
    if key == "lock_strategy":
        return (
            f"No schema change for lock_strategy {before} -> {after}: roll workers over to the new claim "
            "queries (queries.sql) gradually; every strategy ends in the same guarded attempt insert."
        )
    if key == "lease.duration":
        return (
            f"No schema change for lease.duration: claims from now on hold {after}; "
            "running leases keep theirs."
        )
    if key == "lease.max_attempts":
        return f"After: runs created from now on default to {after} attempts; existing runs keep theirs."
    if key in ("payload.inline_limit", "payload.event_limit", "payload.outbox_limit"):
        if _bytes(after) < _bytes(before):
            return (
                f"Before: make sure no stored row exceeds the new {key} ({after}): VALIDATE fails on one "
                "(the new limit already guards rows written after its NOT VALID step)."
            )
        return None
    if section == "hot_state":
        return (
            f"No schema change for {key}: deploy the regenerated redis/ (hot_state.py, the Lua "
            "scripts) with the workers; PostgreSQL stays the record either way (PLAN.md, hot state)."
        )
    if key == "payload.compression":
        return "After: values written from now on use the new compression; stored values keep theirs."
    return None


def _partition_notes(old: SchemaModel, new: SchemaModel) -> list[str]:
    notes = []
    for table in new.tables:
        before = (
            next(t for t in old.tables if t.name == table.name).partitioning if table.partitioning else None
        )
        if before is not None and table.partitioning and before.granularity != table.partitioning.granularity:
            notes.append(
                f"After: existing {table.name} partitions keep their size; partitions created from now on "
                f"are one {table.partitioning.granularity} each (maintain_partitions() fills around them)."
            )
    return notes


def _seconds(value: Any) -> int:
    return parse_duration(value)


def _bytes(value: Any) -> int:
    return parse_size(value)
