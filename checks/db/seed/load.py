"""Load a seed plan into a database that holds the profile's schema, then VACUUM ANALYZE.

Loading is set-based: the plan's per-run arrays go in once as a staging table (in a
schema of its own, dropped afterwards), and each table is an INSERT ... SELECT over it.
The tables under runs are split over concurrent loaders by the run's creation day, so
each daily partition is written by one loader, in time order (as production writes it).

Rows are constructed to satisfy every constraint and trigger. When the session may set
session_replication_role (superuser), foreign-key and trigger checks are skipped for the
load (per-row RI lookups would dominate it); `enforce=True` keeps them on, and the tests
load that way to prove the rows satisfy them. CHECK constraints always run.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg import sql

from agentddl.checks.db.connect import connect
from agentddl.checks.db.seed.columns import insert_statement, staging_statement
from agentddl.checks.db.seed.partitions import ensure_partitions
from agentddl.checks.db.seed.plan import SeedPlan, plan_seed
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, Table

Progress = Callable[[str, int], None]
Params = dict[str, object]
PARENTS = ("tenants", "runs")
MAX_LOADERS = 4


@dataclass(frozen=True)
class SeedStats:
    rows: dict[str, int]  # table name -> rows loaded
    seconds: float

    @property
    def rows_per_second(self) -> float:
        return sum(self.rows.values()) / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class _Load:
    """What every loader of one seed shares."""

    dsn: str
    model: SchemaModel
    staging: str  # the staging table, schema-qualified (our own agentddl_seed_<hex>)
    fast: bool  # FK and trigger checks off for the load
    loaders: int
    params: Params


def seed_model(
    dsn: str,
    model: SchemaModel,
    events: int,
    *,
    progress: Progress | None = None,
    enforce: bool | None = None,
    workers: int | None = None,
) -> SeedStats:
    """Load synthetic rows for a profile's schema (already installed in the database at dsn)
    so that the events table gets `events` rows and every other table rows in realistic
    proportion and skew (see agentddl.checks.db.seed.plan); then VACUUM ANALYZE.
    Run it once on an empty schema. enforce: keep FK/trigger checks on during the load
    (default: only when the session can't switch them off); workers: concurrent loaders
    for the tables under runs (default: the machine's cores, at most 4)."""
    plan = plan_seed(model, events)
    loaders = workers or max(1, min(MAX_LOADERS, os.cpu_count() or 1))
    started = time.perf_counter()
    try:
        rows = _load_all(dsn, model, plan, enforce, loaders, progress)
        _vacuum_analyze(dsn, model, loaders)
    except psycopg.Error as error:
        raise AgentDDLError(f"seeding {model.schema} failed: {error}".strip()) from error
    if progress is not None:
        progress("analyze", sum(rows.values()))
    return SeedStats(rows, time.perf_counter() - started)


def _load_all(
    dsn: str,
    model: SchemaModel,
    plan: SeedPlan,
    enforce: bool | None,
    loaders: int,
    progress: Progress | None,
) -> dict[str, int]:
    """Partitions, the staging table (in a schema of its own, dropped after), every table."""
    schema = f"agentddl_seed_{secrets.token_hex(4)}"
    with connect(dsn) as conn:
        fast = enforce is False or (enforce is None and _is_superuser(conn))
        _session(conn, fast)
        now: datetime = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
        load = _Load(dsn, model, f"{schema}._seed_run", fast, loaders, _params(model, plan, now))
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        try:
            ensure_partitions(conn, model, now - timedelta(seconds=plan.window_seconds))
            conn.execute(staging_statement(model, load.staging), _staging_params(plan, now))
            return _load_parents(conn, load, progress) | _load_children(load, progress)
        finally:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def _session(conn: psycopg.Connection[Any], fast: bool) -> None:
    conn.execute("SET synchronous_commit = off")
    conn.execute("SET work_mem = '128MB'")  # the time-ordered events sort stays in memory
    if fast:
        conn.execute("SET session_replication_role = replica")


def _is_superuser(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    return bool(row and row[0])


def _load_parents(conn: psycopg.Connection[Any], load: _Load, progress: Progress | None) -> dict[str, int]:
    rows: dict[str, int] = {}
    with conn.transaction():
        for table in (t for t in load.model.tables if t.name in PARENTS):
            statement = insert_statement(load.model, table, load.staging)
            if statement is not None:
                rows[table.name] = conn.execute(statement, load.params).rowcount
                if progress is not None:
                    progress(table.name, rows[table.name])
    return rows


def _load_children(load: _Load, progress: Progress | None) -> dict[str, int]:
    """Every table under runs, each split over the loaders by run creation day; a table
    whose parent is another child (tool_calls under node_executions) in a later wave, so
    its foreign key finds committed parents when checks are enforced."""
    rows: dict[str, int] = {}
    for wave in _waves([t for t in load.model.tables if t.name not in PARENTS]):
        for name, count in _load_wave(load, wave, progress).items():
            rows[name] = rows.get(name, 0) + count
    return rows


def _waves(children: list[Table]) -> list[list[Table]]:
    """Children in waves: a table comes after every child table it references."""
    waves: list[list[Table]] = []
    placed: set[str] = set(PARENTS)
    left = list(children)
    while left:
        ready = [t for t in left if {fk.ref_table for fk in t.foreign_keys} <= placed | {t.name}]
        wave = ready or left  # a cycle would be loaded as one wave (none in the model)
        waves.append(wave)
        placed |= {t.name for t in wave}
        left = [t for t in left if t not in wave]
    return waves


def _load_wave(load: _Load, children: list[Table], progress: Progress | None) -> dict[str, int]:
    statements = {t.name: insert_statement(load.model, t, load.staging, grouped=True) for t in children}
    tasks = [(t.name, g) for t in children if statements[t.name] is not None for g in range(load.loaders)]

    def run(task: tuple[str, int]) -> tuple[str, int]:
        name, group = task
        with connect(load.dsn) as conn:
            _session(conn, load.fast)
            params = {**load.params, "workers": load.loaders, "group": group}
            return name, conn.execute(statements[name], params).rowcount  # type: ignore[arg-type]

    rows: dict[str, int] = {}
    with ThreadPoolExecutor(max_workers=load.loaders) as pool:
        for name, count in pool.map(run, tasks):
            rows[name] = rows.get(name, 0) + count
            if progress is not None:
                progress(name, rows[name])  # cumulative, once per finished loader
    return rows


def _staging_params(plan: SeedPlan, now: datetime) -> Params:
    r = plan.runs
    running = [i for i, status in enumerate(r.status) if status == "running"]
    return {
        "now": now,
        "tenant": list(r.tenant),
        "age": list(r.age_seconds),
        "span": list(r.span_seconds),
        "status": list(r.status),
        "parent": list(r.parent),
        "attempts": list(r.attempts),
        "events": list(r.events),
        "checkpoints": list(r.checkpoints),
        "operations": list(r.operations),
        "outbox": list(r.outbox),
        "expired": running[: plan.expired_leases],
    }


def _params(model: SchemaModel, plan: SeedPlan, now: datetime) -> Params:
    p = model.profile
    return {
        "now": now,
        "tenants": plan.tenants,
        "lease": p.lease.duration,
        "checkpoint_bytes": int(p.volume.checkpoint_bytes),
    }


def _vacuum_analyze(dsn: str, model: SchemaModel, loaders: int) -> None:
    """Production tables are vacuumed (visibility map: index-only scans) and analyzed."""

    def vacuum(table: Table) -> None:
        with connect(dsn) as conn:
            conn.execute(
                sql.SQL("VACUUM (ANALYZE) {}.{}").format(
                    sql.Identifier(model.schema), sql.Identifier(table.name)
                )
            )

    biggest_first = sorted(model.tables, key=lambda t: t.partitioning is None)
    with ThreadPoolExecutor(max_workers=loaders) as pool:
        list(pool.map(vacuum, biggest_first))
