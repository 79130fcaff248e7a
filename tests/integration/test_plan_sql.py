"""The SQL that PLAN.md tells operators to run works on a real server: the scheduled
maintenance files delete exactly the expired rows in batches, and the DETACH ...
CONCURRENTLY runbook detaches and drops a partition."""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import load_profile_text
from agentddl.generator.render.plan import render_plan

PROFILES = {
    "default": "",
    "single-tenant-busy": "tenancy: {column: null}\nvolume: {steps_per_second: 2000}",
}


def model_for(body: str, version: int) -> SchemaModel:
    text = f"profile: 1\nname: plan_sql\nengine: {{version: {version}}}\n{body}"
    return derive(load_profile_text(text))


def scheduled_files(plan: str) -> dict[str, str]:
    """The `-- /etc/agentddl/<job>.sql` files of the external-scheduler section."""
    block = re.search(r"```sql\n(-- /etc/agentddl/.*?)\n```", plan, re.S)
    assert block, "no scheduled SQL files in PLAN.md"
    parts = re.split(r"^-- /etc/agentddl/(\w+)\.sql\n", block.group(1), flags=re.M)[1:]
    return {name: sql.strip() for name, sql in zip(parts[::2], parts[1::2], strict=True)}


def seed_outbox(conn: psycopg.Connection[tuple[object, ...]], model: SchemaModel, rows: int) -> None:
    tenant = model.profile.tenant
    s = model.schema
    if tenant:
        conn.execute(f"INSERT INTO {s}.tenants ({tenant}, name) VALUES (gen_random_uuid(), 't')")
    key = f"{tenant}, " if tenant else ""
    pick = f"(SELECT {tenant} FROM {s}.tenants LIMIT 1), " if tenant else ""
    conn.execute(f"INSERT INTO {s}.runs ({key}kind) VALUES ({pick}'demo')")
    source = f"SELECT {key}run_id FROM {s}.runs LIMIT 1"
    conn.execute(
        f"INSERT INTO {s}.outbox ({key}run_id, topic, payload, delivered_at) "
        f"SELECT {key}run_id, 'topic', '{{}}'::jsonb, now() - interval '30 days' "
        f"FROM ({source}) AS r, generate_series(1, %s)",
        (rows,),
    )
    conn.execute(
        f"INSERT INTO {s}.outbox ({key}run_id, topic, payload, delivered_at) "
        f"SELECT {key}run_id, 'topic', '{{}}'::jsonb, now() FROM ({source}) AS r"
    )


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_scheduled_maintenance_files_run(pg_server_latest: PostgresServer, name: str) -> None:
    model = model_for(PROFILES[name], pg_server_latest.version)
    files = scheduled_files(render_plan(model))
    assert set(files) == {
        f"{model.schema}_partitions",
        f"{model.schema}_purge_finished_runs",
        f"{model.schema}_purge_outbox",
    }
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        seed_outbox(conn, model, rows=7_500)  # more than one batch at either batch size
        for sql in files.values():
            conn.execute(sql.encode())
        left = conn.execute(
            f"SELECT count(*) FILTER (WHERE delivered_at < now() - interval '1 day'), count(*) "
            f"FROM {model.schema}.outbox"
        ).fetchone()
    assert left == (0, 1)


def test_detach_concurrently_runbook(pg_server_latest: PostgresServer) -> None:
    """The psql recipe: every step of partition_steps() as a statement of its own (what
    \\gexec does), dated past the oldest partition's retention: it is detached
    CONCURRENTLY and dropped, the runway created, nothing else touched."""
    model = model_for("", pg_server_latest.version)
    recipe = re.search(r"```psql\n(.*?)\n```", render_plan(model), re.S)
    assert recipe
    settings, listing = recipe.group(1).split("SELECT statement FROM ")
    plan = "SELECT action, statement FROM " + listing.replace("partition_steps()", "partition_steps({})")
    listed = "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'agent.events'::regclass"
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        conn.execute(settings.encode())  # lock_timeout, the owner role
        partitions = sorted(row[0] for row in conn.execute(listed))
        steps = conn.execute(plan.replace(" \\gexec", "").format("now() + interval '31 days'")).fetchall()
        for _action, statement in steps:
            conn.execute(statement.encode())  # each on its own: CONCURRENTLY needs it
        remaining = sorted(row[0] for row in conn.execute(listed))
        exists = conn.execute("SELECT to_regclass(%s)", (partitions[0],)).fetchone()
    actions = [action for action, _ in steps]
    assert "detach" in actions and "drop" in actions and "create" in actions
    assert any("CONCURRENTLY" in s for a, s in steps if a == "detach")
    assert partitions[0] not in remaining and exists == (None,)
    assert set(partitions[1:]) <= set(remaining)


def test_pg_partman_maintenance_command_runs(pg_servers: Any) -> None:
    server = pg_servers.get(15)
    assert server.has_extension("pg_partman"), "make test installs postgresql-15-partman"
    body = "retention: {partition_manager: pg_partman}"
    model = model_for(body, 15)
    files = scheduled_files(render_plan(model))
    assert files[f"{model.schema}_partitions"] == "CALL partman.run_maintenance_proc();"
    with server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        seed_outbox(conn, model, rows=10)
        for sql in files.values():
            conn.execute(sql.encode())
        runway = conn.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = %s::regclass",
            (f"{model.schema}.events",),
        ).fetchone()
    assert runway is not None and runway[0] >= model.profile.retention.runway


def test_scheduled_run_purge_spares_a_parent_with_a_live_child(pg_server_latest: PostgresServer) -> None:
    """The cron file must keep the named query's guard: deleting an old finished parent
    cascades to its children, so a parent whose child is still live waits."""
    model = model_for("", pg_server_latest.version)
    purge = scheduled_files(render_plan(model))["agent_purge_finished_runs"]
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        conn.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (gen_random_uuid(), 't')")
        parents = conn.execute(
            "INSERT INTO agent.runs (tenant_id, kind, status, finished_at) "
            "SELECT tenant_id, 'parent', 'succeeded', now() - interval '400 days' "
            "FROM agent.tenants, generate_series(1, 2) RETURNING run_id"
        ).fetchall()
        conn.execute(
            "INSERT INTO agent.runs (tenant_id, kind, status, parent_run_id) "
            "SELECT tenant_id, 'child', 'running', %s FROM agent.tenants",
            (parents[0][0],),
        )
        conn.execute(purge.encode())
        left = conn.execute("SELECT kind, count(*) FROM agent.runs GROUP BY kind ORDER BY kind").fetchall()
    assert left == [("child", 1), ("parent", 1)]  # the other, childless parent expired


def test_scheduled_run_purge_keeps_a_whole_tree_until_every_run_in_it_expired(
    pg_server_latest: PostgresServer,
) -> None:
    """Deleting a run cascades to its whole subtree: an expired root must wait while any
    descendant (a grandchild too) is live or finished inside the retention window."""
    model = model_for("", pg_server_latest.version)
    purge = scheduled_files(render_plan(model))["agent_purge_finished_runs"]
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        conn.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (gen_random_uuid(), 't')")
        old = "'succeeded', now() - interval '400 days'"
        ids: dict[str, object] = {}
        for kind, parent, state in [
            ("root", None, old),
            ("child", "root", old),
            ("grandchild", "child", "'running', NULL"),
            ("root2", None, old),
            ("recent", "root2", "'succeeded', now() - interval '1 day'"),
        ]:
            row = conn.execute(
                "INSERT INTO agent.runs (tenant_id, kind, parent_run_id, status, finished_at) "
                f"SELECT tenant_id, %s, %s, {state} FROM agent.tenants RETURNING run_id",
                (kind, ids.get(parent or "")),
            ).fetchone()
            assert row is not None
            ids[kind] = row[0]
        conn.execute(purge.encode())
        left = [k for (k,) in conn.execute("SELECT kind FROM agent.runs ORDER BY kind").fetchall()]
    assert left == ["child", "grandchild", "recent", "root", "root2"]
