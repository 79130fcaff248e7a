"""What the profile says must really change the schema."""

from __future__ import annotations

from profiles import example_profiles, with_strategy, with_version

from agentddl.generator.model import derive
from agentddl.generator.profile import LockStrategy, load_profile_text
from agentddl.generator.render.ddl import render_schema_sql

DEFAULT = example_profiles()["default"]


def sql_for(profile_text: str) -> str:
    return render_schema_sql(derive(load_profile_text(profile_text)))


def test_engine_version_gates_features() -> None:
    pg14 = render_schema_sql(derive(with_version(DEFAULT, 14)))
    pg18 = render_schema_sql(derive(with_version(DEFAULT, 18)))
    assert "uuidv7()" in pg18 and "uuidv7()" not in pg14
    assert "gen_random_uuid()" in pg14
    assert "NULLS NOT DISTINCT" in pg18 and "NULLS NOT DISTINCT" not in pg14
    assert "coalesce(parent_run_id" in pg14
    assert "GENERATED ALWAYS AS IDENTITY" in pg18 and "CREATE SEQUENCE" not in pg18
    assert "CREATE SEQUENCE agent.events_event_id_seq" in pg14


def test_volume_sets_partitioning_fillfactor_and_brin() -> None:
    quiet = derive(load_profile_text("profile: 1\nname: q\nvolume: {steps_per_second: 2}\n"))
    busy = derive(load_profile_text("profile: 1\nname: b\nvolume: {steps_per_second: 2000}\n"))
    assert quiet.table("events").partitioning.granularity == "week"  # type: ignore[union-attr]
    assert busy.table("events").partitioning.granularity == "hour"  # type: ignore[union-attr]
    quiet_time = next(i for i in quiet.table("events").indexes if i.name == "events_created_at_idx")
    busy_time = next(i for i in busy.table("events").indexes if i.name == "events_created_at_idx")
    assert (quiet_time.method, busy_time.method) == ("btree", "brin")
    assert dict(quiet.table("attempts").storage)["fillfactor"] == "90"
    assert dict(busy.table("attempts").storage)["fillfactor"] == "70"
    # the run row always keeps room for its claim's and its ending's HOT versions
    run_rows = {dict(m.table("runs").storage)["fillfactor"] for m in (quiet, busy)}
    assert run_rows == {"60"}


def test_retention_sets_partition_lifetimes_and_manager() -> None:
    model = derive(load_profile_text("profile: 1\nname: r\nretention: {events: 7d, checkpoints: 2d}\n"))
    assert model.table("events").partitioning.retention_seconds == 7 * 86400  # type: ignore[union-attr]
    builtin = sql_for("profile: 1\nname: r\n")
    partman = sql_for("profile: 1\nname: r\nretention: {partition_manager: pg_partman}\n")
    assert "maintain_partitions" in builtin and "partman.create_parent" not in builtin
    assert "partman.create_parent" in partman and "FUNCTION agent.maintain_partitions" not in partman


def test_lock_strategy_and_rls_change_the_claim_index() -> None:
    plain = derive(DEFAULT)
    rls = derive(load_profile_text("profile: 1\nname: r\ntenancy: {row_level_security: true}\n"))
    claim = next(i for i in plain.table("run_queue").indexes if i.name == "run_queue_visible_idx")
    claim_rls = next(i for i in rls.table("run_queue").indexes if i.name == "run_queue_visible_idx")
    assert claim.columns[0] == "priority DESC" and claim_rls.columns[0] == "tenant_id"
    assert "CREATE POLICY runs_tenant_isolation" in render_schema_sql(rls)
    assert "CREATE POLICY" not in render_schema_sql(plain)
    for strategy in LockStrategy:
        header = render_schema_sql(derive(with_strategy(DEFAULT, strategy))).splitlines()[1]
        assert strategy.value in header


def test_single_tenant_has_no_tenant_column() -> None:
    sql = sql_for("profile: 1\nname: s\ntenancy: {column: null}\n")
    assert "tenant_id" not in sql and "CREATE TABLE agent.tenants" not in sql


def test_payload_settings_reach_the_ddl() -> None:
    sql = sql_for("profile: 1\nname: p\npayload: {compression: pglz, inline_limit: 32kB, event_limit: 2kB}\n")
    assert "SET COMPRESSION pglz" in sql and "payload_bytes <= 32768" in sql
    assert "octet_length(payload::text) <= 2048" in sql
    assert "SET COMPRESSION" not in sql_for("profile: 1\nname: p\npayload: {compression: none}\n")


def test_every_fk_has_an_index_whose_leading_columns_cover_it() -> None:
    for profile in example_profiles().values():
        model = derive(profile)
        for table in model.tables:
            keys = [table.primary_key, *(i.key_columns for i in table.indexes if not i.where)]
            keys += [i.key_columns for i in table.indexes if i.where]  # partial FK indexes
            for fk in table.foreign_keys:
                assert any(k[: len(fk.columns)] == fk.columns for k in keys), (
                    profile.name,
                    fk.name,
                )


def test_every_index_serves_a_declared_access_path_or_constraint() -> None:
    model = derive(DEFAULT)
    paths = {p.name for p in model.access_paths}
    constraints = {fk.name for t in model.tables for fk in t.foreign_keys}
    for index in model.indexes:
        assert any(s in paths or s in constraints or " " in s for s in index.serves), index.name
    for path in model.access_paths:
        assert path.index is None or path.index in {i.name for i in model.indexes} | {
            t.pk_name for t in model.tables
        }, path.name
