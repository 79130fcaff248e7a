"""`verify --profile` on real PostgreSQL (15 and 18): every example profile's schema
verifies clean; each profile rule catches the breakage it is about."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from profiles import example_profiles, with_version

from agentddl.checks.alembic import online as alembic_run
from agentddl.checks.verify import make_context, run_rules
from agentddl.checks.verify.reference import build_reference
from agentddl.generator.model import derive
from agentddl.generator.render.alembic import render_revision

PROFILES = example_profiles()
# pg_partman exists only for Debian's PostgreSQL 15 here: tested on its own.
PORTABLE = sorted(name for name, p in PROFILES.items() if p.retention.partition_manager == "builtin")


def installed(install: Any, name: str, major: int | None) -> Any:
    return install(PROFILES[name], major)


@pytest.mark.parametrize("name", PORTABLE)
def test_example_profile_verifies_clean(install: Any, name: str, profile_major: int | None) -> None:
    assert installed(install, name, profile_major).findings() == []


def test_pg_partman_profile_verifies_clean_on_debian_15(install: Any, pg_servers: Any) -> None:
    assert pg_servers.get(15).has_extension("pg_partman"), "make test installs postgresql-15-partman"
    assert install(PROFILES["partman"], 15).findings() == []


@pytest.fixture(scope="module")
def default(install: Any, profile_major: int | None) -> Any:
    return installed(install, "default", profile_major)


def named(findings: list[Any], code: str) -> dict[str, str]:
    return {f.object: f.message for f in findings if f.code == code and f.is_error}


def test_definitions_written_differently_but_equal_compare_equal(default: Any) -> None:
    rewritten = """
        DROP INDEX agent.approvals_pending_idx;
        CREATE INDEX approvals_pending_idx ON agent.approvals USING btree (tenant_id ASC, requested_at ASC)
            WHERE (((status = 'pending'::text)));
        ALTER TABLE agent.runs DROP CONSTRAINT runs_status_check;
        ALTER TABLE agent.runs ADD CONSTRAINT runs_status_check CHECK (status = ANY (ARRAY[
            'queued'::text, 'running', 'waiting', 'succeeded', 'failed', 'cancelled']));
    """
    assert default.after(rewritten, group=None) == []


def test_a_definition_that_differs_is_named_with_the_difference(default: Any) -> None:
    findings = default.after("""
        DROP INDEX agent.approvals_pending_idx;
        CREATE INDEX approvals_pending_idx ON agent.approvals (tenant_id, requested_at)
            WHERE status = 'approved';
        ALTER TABLE agent.outbox DROP CONSTRAINT outbox_topic_check;
        ALTER TABLE agent.outbox ADD CONSTRAINT outbox_topic_check
            CHECK (char_length(topic) <= 200) NOT VALID;
    """)
    index = named(findings, "ADV121")["agent.approvals_pending_idx"]
    assert """predicate "status = 'approved'::text" (declared: "status = 'pending'::text")""" in index
    assert "differs" in named(findings, "ADV122")["agent.outbox_topic_check"]


def test_a_constraint_left_not_valid_is_reported(default: Any) -> None:
    findings = default.after("""
        ALTER TABLE agent.outbox DROP CONSTRAINT outbox_topic_check;
        ALTER TABLE agent.outbox ADD CONSTRAINT outbox_topic_check
            CHECK (char_length(topic) BETWEEN 1 AND 200) NOT VALID;
    """, group=None)
    assert "not validated" in named(findings, "ADV122")["agent.outbox_topic_check"]
    assert any(f.code == "ADV110" for f in findings)  # the generic rule sees it too


def test_a_foreign_key_without_the_tenant_is_reported(default: Any) -> None:
    findings = default.after("""
        ALTER TABLE agent.outbox DROP CONSTRAINT outbox_run_fkey;
        CREATE UNIQUE INDEX runs_run_id_key ON agent.runs (run_id);
        ALTER TABLE agent.outbox ADD CONSTRAINT outbox_any_run_fkey FOREIGN KEY (run_id)
            REFERENCES agent.runs (run_id);
    """)
    scoped = named(findings, "ADV124")
    assert set(scoped) == {"agent.outbox", "agent.outbox.outbox_any_run_fkey"}
    assert "another tenant's runs row" in scoped["agent.outbox.outbox_any_run_fkey"]


DROP_NEWEST_EVENTS_PARTITION = """
    DO $$ BEGIN
        EXECUTE 'DROP TABLE ' || (SELECT max(inhrelid::regclass::text) FROM pg_inherits
                                  WHERE inhparent = 'agent.events'::regclass);
    END $$;
"""


# The maintenance plan's create steps, in this transaction (the maintain_partitions
# procedure commits as it goes, so it cannot run inside one): the runway from now.
FRESH = """
    DO $$ DECLARE step record; BEGIN
        FOR step IN SELECT * FROM agent.partition_steps() WHERE action = 'create' LOOP
            EXECUTE step.statement;
        END LOOP;
    END $$;
"""


def test_partitions_missing_from_the_runway_are_reported(default: Any) -> None:
    # maintenance first (in the same rolled-back transaction): the runway is measured from now
    fresh = FRESH
    assert named(default.after(fresh + DROP_NEWEST_EVENTS_PARTITION), "ADV125") == {}  # one spare
    findings = default.after(fresh + DROP_NEWEST_EVENTS_PARTITION * 2)
    assert "writes there will fail" in named(findings, "ADV125")["agent.events"]
    with_default = "CREATE TABLE agent.events_default PARTITION OF agent.events DEFAULT;"
    findings = default.after(fresh + DROP_NEWEST_EVENTS_PARTITION * 2 + with_default)
    assert "pile up in the DEFAULT partition" in named(findings, "ADV125")["agent.events"]


def test_grants_beyond_or_short_of_the_profile_are_reported(default: Any) -> None:
    findings = default.after("""
        GRANT UPDATE, DELETE ON agent.events TO agent_app;
        REVOKE INSERT ON agent.outbox FROM agent_app;
        GRANT EXECUTE ON PROCEDURE agent.maintain_partitions(timestamptz) TO agent_app;
    """)
    messages = [f.message for f in findings if f.code == "ADV126"]
    assert (
        "agent_app may DELETE, UPDATE agent.events: it can rewrite history the profile keeps "
        "append-only; the profile grants it INSERT, SELECT."
    ) in messages
    assert any(m.startswith("agent_app lacks INSERT on agent.outbox") for m in messages)
    assert any(m.startswith("agent_app may EXECUTE agent.maintain_partitions(") for m in messages)
    assert len(messages) == 3


def test_column_sequence_and_schema_grants_beyond_the_profile_are_reported(default: Any) -> None:
    findings = default.after("""
        GRANT UPDATE (payload) ON agent.events TO agent_app;
        GRANT UPDATE ON ALL SEQUENCES IN SCHEMA agent TO agent_readonly;
        GRANT CREATE ON SCHEMA agent TO agent_app;
    """)
    messages = [f.message for f in findings if f.code == "ADV126"]
    assert any(
        m.startswith("agent_app may UPDATE (payload) agent.events: it can rewrite history") for m in messages
    )
    assert any(m.startswith("agent_readonly may UPDATE sequence agent.") for m in messages)
    assert any(m.startswith("agent_app may CREATE schema agent;") for m in messages)
    for finding in findings:  # the fixes run as printed
        with default.connection.transaction(force_rollback=True):
            default.connection.execute(finding.fix.split(" (and from")[0].encode())


def test_a_disabled_trigger_and_a_missing_retention_path_are_reported(default: Any) -> None:
    findings = default.after("""
        ALTER TABLE agent.events DISABLE TRIGGER events_append_only;
        DROP PROCEDURE agent.maintain_partitions(timestamptz);
        DROP INDEX agent.runs_finished_idx;
    """)
    assert "enabled 'D' (declared: 'O')" in named(findings, "ADV128")["agent.events_append_only"]
    retention = named(findings, "ADV120")
    assert set(retention) == {"agent.events", "agent.checkpoints", "agent.runs"}
    assert "purge_finished_runs" in retention["agent.runs"]


def test_foreign_keys_whose_triggers_are_disabled_are_reported(default: Any) -> None:
    # DISABLE TRIGGER ALL also disables the internal triggers that enforce foreign keys:
    # on the referencing table, on the referenced one, on one partition of a partitioned one
    findings = default.after("""
        ALTER TABLE agent.attempts DISABLE TRIGGER ALL;
        ALTER TABLE agent.runs DISABLE TRIGGER ALL;
        ALTER TABLE agent.runs ENABLE TRIGGER USER;
    """)
    constraints = {f.object: f for f in findings if f.code == "ADV122"}
    assert {"agent.attempts_run_fkey", "agent.operations_run_fkey", "agent.runs_parent_run_fkey"} <= set(
        constraints
    )
    assert "enforced false (declared: true)" in constraints["agent.attempts_run_fkey"].message
    assert "ENABLE TRIGGER ALL" in constraints["agent.attempts_run_fkey"].fix
    partition = default.connection.execute(
        "SELECT c.relname FROM pg_inherits JOIN pg_class AS c ON c.oid = inhrelid"
        " WHERE inhparent = 'agent.events'::regclass LIMIT 1"
    ).fetchone()[0]
    findings = default.after(f"ALTER TABLE agent.{partition} DISABLE TRIGGER ALL")
    assert "enforced false" in named(findings, "ADV122")["agent.events_run_fkey"]


def test_row_level_security_off_where_the_profile_asks_for_it(
    install: Any, profile_major: int | None
) -> None:
    rls = installed(install, "newest-engine", profile_major)
    findings = rls.after("""
        ALTER TABLE agent.runs DISABLE ROW LEVEL SECURITY;
        DROP POLICY outbox_tenant_isolation ON agent.outbox;
    """)
    assert set(named(findings, "ADV127")) == {"agent.runs", "agent.outbox.outbox_tenant_isolation"}


def test_what_defeats_the_tenant_policies_is_reported(install: Any, profile_major: int | None) -> None:
    rls = installed(install, "newest-engine", profile_major)
    findings = rls.after("""
        CREATE POLICY everyone ON agent.runs USING (true);
        CREATE POLICY only_mine ON agent.outbox AS RESTRICTIVE USING (false);
        ALTER TABLE agent.events NO FORCE ROW LEVEL SECURITY;
        ALTER ROLE agent_app BYPASSRLS;
    """)
    found = named(findings, "ADV127")
    assert set(found) == {"agent.runs.everyone", "agent.outbox.only_mine", "agent.events", "agent_app"}
    assert "widens what its roles see" in found["agent.runs.everyone"]
    assert "force row level security on agent.events is off" in found["agent.events"]
    assert "BYPASSRLS" in found["agent_app"]


def test_row_level_security_on_where_the_profile_has_none(default: Any) -> None:
    findings = default.after("ALTER TABLE agent.events ENABLE ROW LEVEL SECURITY")
    assert "is on; the profile has it off" in named(findings, "ADV127")["agent.events"]


def test_a_renamed_schema_verifies_against_the_profile(default: Any) -> None:
    # Catalog definitions follow the rename; function bodies are text and still name the
    # old schema: exactly those functions are reported (maintenance would find no tables).
    findings = default.after("ALTER SCHEMA agent RENAME TO agent_live", group=None, schema="agent_live")
    assert {(f.code, f.object) for f in findings} == {
        ("ADV129", "agent_live.check_checkpoint_parent()"),
        ("ADV129", "agent_live.partition_steps(p_now timestamp with time zone, p_concurrently boolean)"),
        ("ADV129", "agent_live.maintain_partitions(IN p_now timestamp with time zone)"),
    }
    assert all("body <" in f.message for f in findings)


def test_a_schema_name_that_needs_quoting_verifies_against_the_profile(default: Any) -> None:
    findings = default.after('ALTER SCHEMA agent RENAME TO "Agent Live"', group=None, schema="Agent Live")
    assert {f.code for f in findings} == {"ADV129"} and len(findings) == 3


def test_a_neutered_trigger_function_is_reported(default: Any) -> None:
    findings = default.after("""
        CREATE OR REPLACE FUNCTION agent.forbid_update() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$ BEGIN RETURN NEW; END $$
    """)
    assert list(named(findings, "ADV129")) == ["agent.forbid_update()"]


def test_a_missing_table_is_one_finding(default: Any) -> None:
    findings = default.after("DROP TABLE agent.outbox")
    outbox = [f for f in findings if "outbox" in f.object]
    assert [(f.code, f.object) for f in outbox] == [("ADV123", "agent.outbox")]
    assert outbox[0].message == "table agent.outbox is missing: the runtime's queries on it fail."


def test_a_partition_kept_past_retention_is_reported(default: Any) -> None:
    findings = default.after(
        "CREATE TABLE agent.events_p20200101 PARTITION OF agent.events "
        "FOR VALUES FROM ('2020-01-01 00:00+00') TO ('2020-01-02 00:00+00')"
    )
    expired = named(findings, "ADV120")
    assert list(expired) == ["agent.events_p20200101"]
    assert "past the 30-day retention of agent.events" in expired["agent.events_p20200101"]


def test_the_alembic_revision_verifies_clean(pg_servers: Any, profile_major: int | None) -> None:
    server = pg_servers.get(profile_major)
    model = derive(with_version(PROFILES["default"], server.version))
    reference = build_reference(server, model)
    with server.scratch_database() as dsn:
        alembic_run.upgrade(render_revision(model), dsn)
        with psycopg.connect(dsn, autocommit=True) as connection:
            assert run_rules(connection, make_context(connection, None, model, reference)) == []


def test_a_not_null_left_not_valid_is_reported(default: Any) -> None:
    version = default.connection.info.server_version // 10000
    change = "ALTER TABLE agent.outbox ALTER COLUMN topic DROP NOT NULL; "
    if version < 18:  # NOT NULL ... NOT VALID arrived in 18: there, only a plain drop exists
        findings = default.after(change)
        assert "not null false (declared: true)" in named(findings, "ADV123")["agent.outbox.topic"]
        return
    findings = default.after(change + "ALTER TABLE agent.outbox ADD CONSTRAINT nn NOT NULL topic NOT VALID")
    assert "not null validated false (declared: true)" in named(findings, "ADV123")["agent.outbox.topic"]
