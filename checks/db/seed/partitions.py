"""Partitions for every seeded period, made by the schema's own partition manager.

A fresh schema has partitions from today on; seeded runs were created up to the history
window ago. The generated maintain_partitions() procedure fills every period from the
oldest partition it finds, so one call dated at the window's start followed by an
ordinary call creates the window's partitions (and the second call's retention drops any
it should not keep, exactly as in production). It commits after each step: the
connection must be in autocommit. pg_partman gets create_partition_time() with the
periods' starts.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg import sql

from agentddl.generator.model import SchemaModel


def ensure_partitions(conn: psycopg.Connection[Any], model: SchemaModel, since: datetime) -> None:
    """Make sure run_created_at values from `since` up to now have a partition."""
    partitioned = [t for t in model.tables if t.partitioning is not None]
    if not partitioned:
        return
    if model.profile.retention.partition_manager == "pg_partman":
        for table in partitioned:
            _partman_create(conn, model, table.name, since)
        return
    procedure = sql.SQL("CALL {}.maintain_partitions({})").format(
        sql.Identifier(model.schema), sql.Placeholder()
    )
    conn.execute(procedure, (since,))
    conn.execute(sql.SQL("CALL {}.maintain_partitions()").format(sql.Identifier(model.schema)))


def _partman_create(conn: psycopg.Connection[Any], model: SchemaModel, table: str, since: datetime) -> None:
    """Each period's start (pg_partman takes them as partition lower bounds), from `since`
    or the table's own retention if shorter: a table kept an hour in minute partitions
    needs sixty, not a history window's worth (all made in one transaction)."""
    partitioning = model.table(table).partitioning
    assert partitioning is not None
    unit = partitioning.granularity  # a date_trunc field
    kept = timedelta(seconds=partitioning.retention_seconds)
    conn.execute(
        "SELECT partman.create_partition_time(p_parent_table := %(table)s, p_partition_times :="
        " ARRAY(SELECT generate_series(date_trunc(%(unit)s,"
        " greatest(%(since)s::timestamptz, now() - %(kept)s::interval)), now(),"
        " ('1 ' || %(unit)s)::interval)))",
        {"table": f"{model.schema}.{table}", "unit": unit, "since": since, "kept": kept},
    )
