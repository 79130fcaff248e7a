"""Partition lifecycle: generated maintenance (a plan function and the procedure that
carries it out), or pg_partman's configuration.

Maintenance never stalls the queue: every statement that takes a strong lock runs in a
transaction of its own, under a short lock_timeout, and is retried a few times after a
pause; a step that keeps losing is left for the next run (the runway leaves room for it).
A new partition is created as a table of its own, then attached (SHARE UPDATE EXCLUSIVE
on the parent: history writes and reads go on). An expired one is detached, then its
foreign key to runs is removed (the one ACCESS EXCLUSIVE lock on runs, for a catalog
change), then it is dropped (nothing locked but itself).
"""

from __future__ import annotations

from agentddl.generator.model.names import quote
from agentddl.generator.model.scope import Scope
from agentddl.generator.model.types import Partitioning, SqlBlock, Table
from agentddl.generator.sqltemplate import render_sql

# A step waits at most this long for a lock (so the workload queued behind it waits
# about as long), then steps back, pauses and tries again.
STEP_LOCK_TIMEOUT_MS = 10
STEP_TRIES = 6  # pauses of 50 ms, doubling: about 1.5 s of retrying per step
FIRST_PAUSE = 0.05


def _specs(tables: tuple[Table, ...]) -> str:
    rows = []
    for table in tables:
        part = table.partitioning
        if part:
            keep = f"interval '{part.retention_seconds} seconds'"
            fk = next(k.name for k in table.foreign_keys if part.column in k.columns)
            suffix = part.period.suffix
            rows.append(f"('{table.name}', '{part.granularity}', {keep}, {part.runway}, '{suffix}', '{fk}')")
    return ",\n            ".join(rows)


def plan_function(s: Scope, tables: tuple[Table, ...]) -> SqlBlock:
    """partition_steps(): the maintenance plan as rows (templates/partition_steps.sql).
    Bounds go out as text (%L) and come back from pg_get_expr: its fixed date settings
    make the round trip exact whatever the caller's session uses (non-ISO styles print
    ambiguous zone abbreviations, e.g. IST). A detached partition loses its foreign key
    to runs (the only step that locks runs, ACCESS EXCLUSIVE, for a catalog change),
    then is dropped (no lock on runs any more)."""
    body = render_sql(
        "partition_steps",
        schema=s.profile.schema_name,
        qschema=quote(s.profile.schema_name),
        specs=_specs(tables),
        owner=quote(s.profile.role("owner")),
    )
    return SqlBlock(
        "partition_steps",
        body,
        "the partition maintenance plan: each statement to run on its own, in order (as the table's owner)",
    )


def maintenance_procedure(s: Scope) -> SqlBlock:
    """CALL maintain_partitions(): the plan carried out, step by step. A procedure that
    commits can have no SET clause, so it pins search_path, and takes the role that owns
    the step's table (so a new partition belongs to its parent's owner), anew in each
    step's transaction."""
    schema = s.profile.schema_name
    table = f"pg_catalog.format('%I.%I', '{schema}', step.table_name)::regclass"
    table_owner = (
        "(SELECT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class AS c\n"
        f"                    WHERE c.oid = {table})"
    )
    body = render_sql(
        "maintain_partitions",
        qschema=quote(schema),
        table_owner=table_owner,
        lock_timeout_ms=STEP_LOCK_TIMEOUT_MS,
        tries=STEP_TRIES,
        first_pause=FIRST_PAUSE,
        owner=quote(s.profile.role("owner")),
    )
    return SqlBlock(
        "maintain_partitions",
        body,
        "partition maintenance: each step its own short transaction, retried, never a long lock "
        "(members of the owner role call it)",
    )


def bootstrap(s: Scope) -> SqlBlock:
    q = quote(s.profile.schema_name)
    if s.profile.retention.partition_manager == "pg_partman":
        return SqlBlock(
            "partitions_bootstrap",
            "SELECT partman.run_maintenance()",
            "pg_partman creates the first partitions",
        )
    sql = render_sql("partitions_bootstrap", qschema=q)
    return SqlBlock(
        "partitions_bootstrap",
        sql,
        "the current and future partitions exist before the first write (in this transaction)",
    )


def partman(s: Scope, tables: tuple[Table, ...]) -> tuple[SqlBlock, ...]:
    """pg_partman takes over creation and retention (its own run_maintenance job).
    Versions 4 and 5 name create_parent's arguments differently: branch on the version."""
    blocks = [
        SqlBlock(
            "partman_extension",
            "CREATE SCHEMA IF NOT EXISTS partman;\nCREATE EXTENSION IF NOT EXISTS pg_partman SCHEMA partman",
            "pg_partman manages partitions (profile: retention.partition_manager)",
        )
    ]
    for table in tables:
        if table.partitioning:
            blocks.append(_partman_table(s.profile.schema_name, table.name, table.partitioning))
    return tuple(blocks)


def _partman_table(schema: str, name: str, part: Partitioning) -> SqlBlock:
    parent = f"{schema}.{name}"
    common = (
        f"p_parent_table := '{parent}', p_control := '{part.column}', "
        f"p_interval := '1 {part.granularity}', p_premake := {part.runway}"
    )
    sql = render_sql("partman_parent", common=common, retention_seconds=part.retention_seconds, parent=parent)
    drop = (
        f"DELETE FROM partman.part_config WHERE parent_table = '{parent}';\n"
        f"DROP TABLE IF EXISTS partman.template_{schema}_{name}"
    )
    return SqlBlock(
        f"{name}_partman",
        sql,
        f"pg_partman keeps {part.runway} partitions ahead and drops expired ones",
        drop=drop,
    )
