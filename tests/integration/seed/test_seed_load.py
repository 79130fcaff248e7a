"""Seeding on real PostgreSQL: counts land, every constraint and trigger holds, skew is
as planned, for every example profile on its own engine version."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from profiles import example_profiles
from psycopg import sql

from agentddl.checks.db.install import install_schema
from agentddl.checks.db.seed import plan_seed, seed_model
from agentddl.generator.model import SchemaModel, derive

PROFILES = example_profiles()
EVENTS = 3_000


def _install(server: Any, model: SchemaModel) -> str:
    dsn = server.create_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
    return dsn


def _count(conn: psycopg.Connection[Any], query: str | sql.Composable, *params: Any) -> int:
    row = conn.execute(query, params or None).fetchone()  # type: ignore[arg-type]
    assert row is not None
    return int(row[0])


def _orphans(conn: psycopg.Connection[Any], model: SchemaModel) -> dict[str, int]:
    """Rows whose foreign key finds no parent, per declared FK (an anti-join each)."""
    found = {}
    for table in model.tables:
        for fk in table.foreign_keys:
            match = sql.SQL(" AND ").join(
                sql.SQL("p.{} = c.{}").format(sql.Identifier(r), sql.Identifier(c))
                for c, r in zip(fk.columns, fk.ref_columns, strict=True)
            )
            present = sql.SQL(" AND ").join(
                sql.SQL("c.{} IS NOT NULL").format(sql.Identifier(c)) for c in fk.columns
            )
            query = sql.SQL(
                "SELECT count(*) FROM {s}.{t} AS c WHERE {present}"
                " AND NOT EXISTS (SELECT FROM {s}.{r} AS p WHERE {match})"
            ).format(s=sql.Identifier(model.schema), t=sql.Identifier(table.name),
                     r=sql.Identifier(fk.ref_table), present=present, match=match)
            found[fk.name] = _count(conn, query)
    return found


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_seeds_with_constraints_and_triggers_enforced(pg_servers: Any, name: str) -> None:
    """FK and trigger checks stay on (enforce=True): the database itself accepts every row."""
    model = derive(PROFILES[name])
    server = pg_servers.get(model.profile.engine.version)
    dsn = _install(server, model)
    try:
        stats = seed_model(dsn, model, EVENTS, enforce=True)
        assert stats.rows == plan_seed(model, EVENTS).row_counts
        assert stats.rows["events"] == EVENTS
        with psycopg.connect(dsn) as conn:
            for table, rows in stats.rows.items():
                q = sql.SQL("SELECT count(*) FROM {}.{}").format(
                    sql.Identifier(model.schema), sql.Identifier(table))
                assert _count(conn, q) == rows, table
            never_analyzed = """SELECT count(*) FROM pg_class AS c JOIN pg_namespace AS n
                ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r' AND c.reltuples < 0"""
            assert _count(conn, never_analyzed, model.schema) == 0
            leftovers = "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'agentddl_seed_%%'"
            assert _count(conn, leftovers) == 0
    finally:
        server.drop_database(dsn)


@pytest.fixture(scope="module")
def fast_seeded(pg_servers: Any) -> Any:
    """The default profile loaded the fast way (FK/trigger checks off for the load)."""
    model = derive(PROFILES["default"])
    server = pg_servers.get(model.profile.engine.version)
    dsn = _install(server, model)
    seed_model(dsn, model, 20_000)
    with psycopg.connect(dsn) as conn:
        yield model, conn
    server.drop_database(dsn)


def test_fast_load_leaves_no_orphans_and_valid_history(fast_seeded: Any) -> None:
    model, conn = fast_seeded
    orphans = _orphans(conn, model)
    assert orphans and set(orphans.values()) == {0}, orphans
    s = model.schema
    gaps = f"""SELECT count(*) FROM (SELECT run_id, max(seq) AS m, count(*) AS n
        FROM {s}.events GROUP BY run_id) AS x WHERE m <> n"""
    assert _count(conn, gaps) == 0
    no_parent = f"""SELECT count(*) FROM {s}.checkpoints AS c WHERE c.parent_seq IS NOT NULL
        AND NOT EXISTS (SELECT FROM {s}.checkpoints AS p WHERE p.run_id = c.run_id
        AND p.run_created_at = c.run_created_at AND p.seq = c.parent_seq)"""
    assert _count(conn, no_parent) == 0
    one_active = f"""SELECT count(*) FROM {s}.runs AS r JOIN {s}.attempts AS a USING (tenant_id, run_id)
        WHERE r.status = 'running' AND a.status = 'active'"""
    assert _count(conn, one_active) == _count(conn, f"SELECT count(*) FROM {s}.runs WHERE status = 'running'")
    later = f"SELECT count(*) FROM {s}.events WHERE created_at > now() OR created_at < run_created_at"
    assert _count(conn, later) == 0


def test_skew_is_as_planned(fast_seeded: Any) -> None:
    model, conn = fast_seeded
    plan = plan_seed(model, 20_000)
    s = model.schema
    status = dict(conn.execute(f"SELECT status, count(*) FROM {s}.runs GROUP BY status").fetchall())
    assert {k: status.get(k, 0) for k in ("queued", "running", "waiting")} == {
        k: plan.runs.status.count(k) for k in ("queued", "running", "waiting")}  # type: ignore[arg-type]
    expired = f"SELECT count(*) FROM {s}.attempts WHERE status = 'active' AND lease_expires_at < now()"
    assert _count(conn, expired) == plan.expired_leases
    top = f"SELECT max(n) FROM (SELECT count(*) AS n FROM {s}.runs GROUP BY tenant_id) AS t"
    assert _count(conn, top) == max(plan.runs.tenant.count(t) for t in range(plan.tenants))
    per_day = f"""SELECT count(DISTINCT date_trunc('day', run_created_at)) FROM {s}.events"""
    assert _count(conn, per_day) >= plan.window_seconds // 86_400 - 1


def test_a_partman_table_kept_an_hour_gets_an_hour_of_partitions(pg_servers: Any) -> None:
    """Found by the property-based test: pg_partman was asked for minute partitions of
    checkpoints (kept 1h) over the whole 14-day history window, 20,000 tables in one
    transaction (out of shared memory). Each table needs only what it keeps."""
    from agentddl.generator.profile.load import load_profile_text

    profile = load_profile_text(
        "profile: 1\nname: brief\nengine: {version: 15}\ntenancy: {column: null}\n"
        "volume: {steps_per_second: 49, runs_per_day: 1, events_per_step: 5}\n"
        "retention: {events: 90d, checkpoints: 1h, outbox_delivered: 1h, partition_manager: pg_partman}\n"
        "lease: {duration: 10s}\n"
    )
    model = derive(profile)
    checkpoints = model.table("checkpoints").partitioning
    assert checkpoints is not None and checkpoints.granularity == "minute"
    server = pg_servers.get(15)
    dsn = _install(server, model)
    try:
        stats = seed_model(dsn, model, EVENTS)
        assert stats.rows["events"] == EVENTS
        with psycopg.connect(dsn) as conn:
            made = "SELECT count(*) FROM pg_inherits WHERE inhparent = %s::regclass"
            assert _count(conn, made, f"{model.schema}.checkpoints") <= 60 + checkpoints.runway + 2
    finally:
        server.drop_database(dsn)
