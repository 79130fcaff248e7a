"""Every example profile and lock strategy, applied to real PostgreSQL both ways:
schema.sql and `alembic upgrade head`; identical catalogs (the one catalog snapshot and
diff, `db.catalog`); `downgrade base` clean."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from profiles import example_profiles, with_strategy, with_version

from agentddl.checks.alembic import online as alembic_run
from agentddl.checks.db import PostgresServer
from agentddl.checks.db.catalog import Snapshot, diff, read_snapshot
from agentddl.checks.db.declared import compare_with_model, model_roles
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive
from agentddl.generator.profile import LockStrategy, Profile
from agentddl.generator.render.alembic import render_revision

PROFILES = example_profiles()
# pg_partman exists only for Debian's PostgreSQL 15 here: tested on its own below.
PORTABLE = sorted(name for name, p in PROFILES.items() if p.retention.partition_manager == "builtin")


def apply_sql(dsn: str, profile: Profile) -> None:
    with psycopg.connect(dsn, autocommit=True) as connection:
        install_schema(connection, derive(profile))


def snapshot(dsn: str, profile: Profile) -> Snapshot:
    model = derive(profile)
    with psycopg.connect(dsn) as connection:
        return read_snapshot(connection, model.schema, model_roles(model))


def assert_both_paths_agree(server: PostgresServer, profile: Profile) -> None:
    model = derive(profile)
    with server.scratch_database() as via_sql, server.scratch_database() as via_alembic:
        apply_sql(via_sql, profile)
        revision = render_revision(model)
        alembic_run.upgrade(revision, via_alembic)
        first, second = snapshot(via_sql, profile), snapshot(via_alembic, profile)
        assert compare_with_model(model, first) == []
        assert first.objects["indexes"] and first.objects["constraints"] and first.privileges
        assert diff(first, second) == []
        alembic_run.downgrade(revision, via_alembic)
        with psycopg.connect(via_alembic) as connection:
            left = connection.execute(
                "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (model.schema,)
            ).fetchone()
        assert left == (0,)


@pytest.mark.parametrize("name", PORTABLE)
def test_example_profile_both_ways(pg_server: PostgresServer, name: str) -> None:
    assert_both_paths_agree(pg_server, with_version(PROFILES[name], pg_server.version))


@pytest.mark.parametrize("strategy", list(LockStrategy), ids=lambda s: s.value)
def test_every_lock_strategy_both_ways(pg_server: PostgresServer, strategy: LockStrategy) -> None:
    profile = with_version(with_strategy(PROFILES["default"], strategy), pg_server.version)
    assert_both_paths_agree(pg_server, profile)


def test_pg_partman_profile_on_debian_15(pg_servers: Any) -> None:
    server = pg_servers.get(15)
    assert server.has_extension("pg_partman"), "make test installs postgresql-15-partman"
    assert_both_paths_agree(server, PROFILES["partman"])


def test_schema_sql_applies_to_a_second_database_on_the_same_cluster(
    pg_server: PostgresServer,
) -> None:
    # Roles are cluster-wide: the second database finds them and must not fail.
    profile = with_version(PROFILES["default"], pg_server.version)
    with pg_server.scratch_database() as first, pg_server.scratch_database() as second:
        apply_sql(first, profile)
        apply_sql(second, profile)
        assert compare_with_model(derive(profile), snapshot(second, profile)) == []
