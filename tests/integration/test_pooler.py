"""Tenancy behind a transaction-mode pooler: a real PgBouncer with one server connection,
so two tenants' clients share one server session, transaction after transaction. The
runtime names the tenant (and takes the query's role) per transaction: neither tenant
ever sees the other's rows, and a transaction that names no tenant sees none. The same
pooler with the tenant set for the session shows the leak that guards against."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from profiles import example_profiles, with_version
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.checks.db.pgbouncer import pooled, transaction_pooler
from agentddl.checks.db.runtime import Runtime
from agentddl.generator.model import SchemaModel, derive

TENANT_A, TENANT_B = uuid.uuid4(), uuid.uuid4()


@pytest.fixture(scope="module")
def shared(pg_server_latest: PostgresServer) -> Iterator[tuple[SchemaModel, str]]:
    """The row-level security profile installed, two tenants with a run each; the
    pooler's DSN for that database."""
    model = derive(with_version(example_profiles()["newest-engine"], pg_server_latest.version))
    with pg_server_latest.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        install_schema(conn, model)
        for tenant in (TENANT_A, TENANT_B):
            conn.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 't')", (tenant,))
        with transaction_pooler(pg_server_latest.admin_dsn) as template:
            yield model, template.format(database=dsn.rsplit("/", 1)[1])


def start(runtime: Runtime, key: str) -> Any:
    return runtime.call(
        "start_run", tenant_id=runtime.tenant, run_key=key, parent_run_id=None, kind="pooled",
        input=Jsonb({}), priority=0, trace_id=None,
    )  # fmt: skip


def visible_tenants(conn: psycopg.Connection[Any], app: str) -> set[Any]:
    """The tenants of the runs a transaction as the app role sees, naming no tenant."""
    with conn.transaction():
        conn.execute("SELECT set_config('role', %s, true)", [app])
        return {row["tenant_id"] for row in conn.execute("SELECT tenant_id FROM agent.runs")}


def test_two_tenants_on_one_server_connection_never_see_each_other(shared: tuple[SchemaModel, str]) -> None:
    model, dsn = shared
    app = model.profile.role("app")
    with pooled(dsn, row_factory=dict_row) as a_conn, pooled(dsn, row_factory=dict_row) as b_conn:
        pids = {
            row["pid"] for conn in (a_conn, b_conn) for row in conn.execute("SELECT pg_backend_pid() AS pid")
        }
        assert len(pids) == 1  # one server session serves both clients
        a, b = Runtime(model, a_conn, tenant=TENANT_A), Runtime(model, b_conn, tenant=TENANT_B)
        a_run, b_run = start(a, "a-1"), start(b, "b-1")
        for _ in range(3):  # interleaved: each transaction follows the other tenant's
            assert a.call("get_run", tenant_id=TENANT_A, run_id=a_run["run_id"]) is not None
            assert b.call("get_run", tenant_id=TENANT_B, run_id=a_run["run_id"]) is None
            assert a.call("get_run", tenant_id=TENANT_A, run_id=b_run["run_id"]) is None
        assert visible_tenants(b_conn, app) == set()  # a tenant-less transaction after A's sees nothing
        assert [row["u"] for row in b_conn.execute("SELECT current_user AS u")] == ["postgres"]  # role, too
        claimed = a.call("claim_run", tenant_id=TENANT_B, worker_id="w", lease_token="t", lease_seconds=30)
        assert claimed is None  # B's queue, asked for in A's transaction: not A's to see


def test_a_tenant_set_for_the_session_leaks_to_the_next_client(shared: tuple[SchemaModel, str]) -> None:
    """What per-transaction guards against: set for the session, tenant A stays on the
    server connection, and B's next transaction that names no tenant reads A's rows."""
    model, dsn = shared
    app = model.profile.role("app")
    with pooled(dsn, row_factory=dict_row) as a_conn, pooled(dsn, row_factory=dict_row) as b_conn:
        start(Runtime(model, a_conn, tenant=TENANT_A), "a-leak")
        a_conn.execute("SELECT set_config('agentddl.tenant', %s, false)", [str(TENANT_A)])
        try:
            assert visible_tenants(b_conn, app) == {TENANT_A}
        finally:
            a_conn.execute("RESET agentddl.tenant")
