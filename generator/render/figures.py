"""Numbers PLAN.md derives from the model: rows per day, partitions kept, cadences,
the retention purges and their batch SQL. One place, so every section agrees."""

from __future__ import annotations

import math
from dataclasses import dataclass

from agentddl.generator.model import AccessPath, Index, Partitioning, SchemaModel, Table, tuning
from agentddl.generator.model.names import quote
from agentddl.generator.profile import periods
from agentddl.generator.profile.periods import Period
from agentddl.generator.render.markdown import interval
from agentddl.generator.render.queries.base import Ctx
from agentddl.generator.render.queries.ops import expired_tree_guard

DAY = 86400


def partitioned(model: SchemaModel) -> tuple[Table, ...]:
    return tuple(t for t in model.tables if t.partitioning)


def partitioning(table: Table) -> Partitioning:
    assert table.partitioning is not None
    return table.partitioning


def partitions_kept(part: Partitioning) -> int:
    """About how many partitions exist at steady state: the retained ones, the current
    one and the runway ahead."""
    return periods.partitions_kept(part.period, part.retention_seconds, part.runway)


def runway_seconds(part: Partitioning) -> int:
    return part.runway * part.period.seconds


def finest_period(model: SchemaModel) -> Period:
    """The shortest partition period of the model (a month when nothing is partitioned):
    maintenance runs at its cadence."""
    found = [partitioning(t).period for t in partitioned(model)] or [periods.PERIODS[0]]
    return min(found, key=lambda p: p.seconds)


def heartbeat_seconds(model: SchemaModel) -> int:
    return max(1, model.profile.lease.duration // 3)


def steps_per_day(model: SchemaModel) -> int:
    return model.profile.volume.steps_per_second * DAY


def event_rows_per_day(model: SchemaModel) -> int:
    return tuning.event_rows_per_day(model.profile)


def checkpoint_rows_per_day(model: SchemaModel) -> int:
    return tuning.checkpoint_rows_per_day(model.profile)


def batch_size(model: SchemaModel) -> int:
    return tuning.batch_size(model.profile)


def path(model: SchemaModel, name: str) -> AccessPath:
    """A declared access path by name; PLAN.md names only paths the model declares."""
    return next(p for p in model.access_paths if p.name == name)


def index(model: SchemaModel, name: str) -> Index:
    return next(i for i in model.indexes if i.name == name)


def qualified(model: SchemaModel, table: str) -> str:
    return f"{quote(model.schema)}.{quote(table)}"


@dataclass(frozen=True)
class Purge:
    """A retention window enforced by batched deletes (tables that are not partitioned)."""

    path: AccessPath
    column: str  # the time column the path's index leads with
    retention_seconds: int
    rows_per_day: int
    rows_note: str
    every_minutes: int

    @property
    def cron(self) -> str:
        return "*/5 * * * *" if self.every_minutes == 5 else "30 * * * *"


def purges(model: SchemaModel) -> tuple[Purge, ...]:
    paths = [p for p in model.access_paths if p.kind == "maintenance" and p.index]
    return tuple(_purge(model, p) for p in paths if p.table in _PURGE_WINDOWS)


# Which profile retention window each batched purge enforces, and its daily rows.
_PURGE_WINDOWS = {"runs": "runs", "outbox": "outbox_delivered"}


def _purge(model: SchemaModel, access: AccessPath) -> Purge:
    profile = model.profile
    assert access.index is not None
    column = index(model, access.index).key_columns[0]
    window = getattr(profile.retention, _PURGE_WINDOWS[access.table])
    if access.table == "runs":
        rows, note = profile.volume.runs_per_day, "runs_per_day"
    else:
        rows, note = steps_per_day(model), "upper bound: one message per step"
    every = 5 if rows >= 1_000_000 else 60
    return Purge(access, column, window, rows, note, every)


def max_batches(model: SchemaModel, purge: Purge) -> int:
    """Batches one job run may take: twice what arrives between runs, so it catches up."""
    arriving = purge.rows_per_day * purge.every_minutes / 1440
    return max(2, math.ceil(2 * arriving / batch_size(model)))


def purge_delete(model: SchemaModel, purge: Purge) -> str:
    """One batch: the oldest expired rows by the purge index, deleted by primary key."""
    table = model.table(purge.path.table)
    key = ", ".join(table.primary_key)
    row = f"({key})" if len(table.primary_key) > 1 else key
    target = qualified(model, table.name)
    cutoff = f"now() - {interval(purge.retention_seconds)}"
    return (
        f"DELETE FROM {target}\n"
        f"WHERE {row} IN (\n"
        f"    SELECT {key} FROM {target} AS f\n"
        f"    WHERE f.{purge.column} < {cutoff}\n"
        f"{_live_children_guard(model, table, cutoff)}"
        f"    ORDER BY f.{purge.column}\n"
        f"    LIMIT {batch_size(model)}\n"
        ")"
    )


def _live_children_guard(model: SchemaModel, table: Table, cutoff: str) -> str:
    """The named purge_finished_runs query's guard: deleting a run cascades to its whole
    subtree, so a tree goes only once every run in it has expired."""
    if not any(c.name == "parent_run_id" for c in table.columns):
        return ""
    return f"        AND {expired_tree_guard(Ctx(model), 'f', cutoff)}\n"


def purge_loop(model: SchemaModel, purge: Purge) -> str:
    """The batched delete in a DO block committing after each batch (run as the only
    statement of its session, so COMMIT is allowed), stopping at a short batch."""
    body = purge_delete(model, purge).replace("\n", "\n        ")
    return (
        "DO $$\nDECLARE\n    deleted bigint;\nBEGIN\n"
        f"    FOR batch IN 1 .. {max_batches(model, purge)} LOOP\n"
        f"        {body};\n"
        "        GET DIAGNOSTICS deleted = ROW_COUNT;\n"
        "        COMMIT;\n"
        f"        EXIT WHEN deleted < {batch_size(model)};\n"
        "    END LOOP;\nEND\n$$"
    )


def partition_command(model: SchemaModel) -> str:
    """The statement that runs partition maintenance for this profile."""
    if model.partitions_by_partman:
        return "CALL partman.run_maintenance_proc()"
    return f"CALL {quote(model.schema)}.maintain_partitions()"
