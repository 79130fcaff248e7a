"""Each invariant, attacked on a real database: the database itself must refuse."""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterator

import psycopg
import pytest
from profiles import example_profiles, with_version
from psycopg import errors

from agentddl.checks.db import PostgresServer
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive

TENANT_A, TENANT_B = uuid.uuid4(), uuid.uuid4()
TOKEN_HASH = hashlib.sha256(b"lease-token").digest()


@pytest.fixture
def db(pg_server: PostgresServer) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """The default schema with two tenants and one run each, autocommit."""
    profile = with_version(example_profiles()["default"], pg_server.version)
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as connection:
        install_schema(connection, derive(profile))
        for tenant in (TENANT_A, TENANT_B):
            connection.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 't')", (tenant,))
            connection.execute("INSERT INTO agent.runs (tenant_id, kind) VALUES (%s, 'demo')", (tenant,))
        yield connection


def run_of(db: psycopg.Connection[tuple[object, ...]], tenant: uuid.UUID) -> tuple[object, ...]:
    row = db.execute("SELECT run_id, created_at FROM agent.runs WHERE tenant_id = %s", (tenant,)).fetchone()
    assert row is not None
    return row


def add_attempt(db: psycopg.Connection[tuple[object, ...]], run_id: object, attempt_no: int) -> None:
    db.execute(
        "INSERT INTO agent.attempts (tenant_id, run_id, attempt_no, fencing_token, worker_id,"
        " lease_token_hash, lease_expires_at) VALUES (%s, %s, %s, 1, 'w', %s, now() + interval '1 min')",
        (TENANT_A, run_id, attempt_no, TOKEN_HASH),
    )


def test_second_active_attempt_for_a_run_is_refused(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    run_id, _ = run_of(db, TENANT_A)
    add_attempt(db, run_id, 1)
    with pytest.raises(errors.UniqueViolation, match="attempts_one_active_key"):
        add_attempt(db, run_id, 2)
    db.execute(
        "UPDATE agent.attempts SET status = 'expired', ended_at = now() WHERE run_id = %s",
        (run_id,),
    )
    add_attempt(db, run_id, 2)  # once the first is closed, a new one may start


def test_operation_pointing_at_another_tenants_run_is_refused(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    other_run, _ = run_of(db, TENANT_B)
    with pytest.raises(errors.ForeignKeyViolation, match="operations_run_fkey"):
        db.execute(
            "INSERT INTO agent.operations (tenant_id, idempotency_key, run_id, input_hash, fencing_token)"
            " VALUES (%s, 'k1', %s, %s, 1)",
            (TENANT_A, other_run, TOKEN_HASH),
        )


def test_status_outside_the_enum_is_refused(db: psycopg.Connection[tuple[object, ...]]) -> None:
    with pytest.raises(errors.CheckViolation, match="runs_status_check"):
        db.execute("INSERT INTO agent.runs (tenant_id, kind, status) VALUES (%s, 'x', 'paused')", (TENANT_A,))


def test_forbidden_transitions_are_refused_by_the_database(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    cancel = "UPDATE agent.runs SET status = 'cancelled', version = version + 1, finished_at = now()"
    db.execute(cancel + " WHERE tenant_id = %s", (TENANT_A,))
    revive = "UPDATE agent.runs SET status = 'running', version = version + 1, finished_at = NULL"
    with pytest.raises(errors.CheckViolation, match="cancelled -> running is not an allowed transition"):
        db.execute(revive + " WHERE tenant_id = %s", (TENANT_A,))
    with pytest.raises(errors.CheckViolation, match="must bump version"):
        db.execute("UPDATE agent.runs SET status = 'waiting' WHERE tenant_id = %s", (TENANT_B,))


def test_app_role_cannot_update_events_and_nobody_can(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    run_id, created_at = run_of(db, TENANT_A)
    db.execute(
        "INSERT INTO agent.events (tenant_id, run_id, run_created_at, seq, kind, actor)"
        " VALUES (%s, %s, %s, 1, 'step.started', 'agent:a1')",
        (TENANT_A, run_id, created_at),
    )
    with db.transaction():
        db.execute("SET LOCAL ROLE agent_app")
        assert db.execute("SELECT count(*) FROM agent.events").fetchone() == (1,)
        with pytest.raises(errors.InsufficientPrivilege, match="permission denied"), db.transaction():
            db.execute("UPDATE agent.events SET kind = 'step.rewritten'")
    with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
        db.execute("UPDATE agent.events SET kind = 'step.rewritten'")  # the owner too


def test_child_rows_must_sit_in_their_runs_partition(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    run_id, created_at = run_of(db, TENANT_A)
    with pytest.raises(errors.ForeignKeyViolation, match="events_run_fkey"):
        db.execute(
            "INSERT INTO agent.events (tenant_id, run_id, run_created_at, seq, kind, actor)"
            " VALUES (%s, %s, %s::timestamptz + interval '1 hour', 1, 'step.started', 'system')",
            (TENANT_A, run_id, created_at),
        )


def test_event_payloads_are_bounded_and_secret_free(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    run_id, created_at = run_of(db, TENANT_A)
    insert = (
        "INSERT INTO agent.events (tenant_id, run_id, run_created_at, seq, kind, actor, payload)"
        " VALUES (%s, %s, %s, %s, 'tool.called', 'tool:search', %s::jsonb)"
    )
    with pytest.raises(errors.CheckViolation, match="events_payload_secrets_check"):
        db.execute(insert, (TENANT_A, run_id, created_at, 1, '{"api_key": "sk-123"}'))
    with pytest.raises(errors.CheckViolation, match="events_payload_size_check"):
        db.execute(insert, (TENANT_A, run_id, created_at, 1, '{"blob": "%s"}' % ("x" * 9000)))


def test_checkpoint_payload_is_inline_or_out_of_line(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    run_id, created_at = run_of(db, TENANT_A)
    with pytest.raises(errors.CheckViolation, match="checkpoints_payload_place_check"):
        db.execute(
            "INSERT INTO agent.checkpoints (tenant_id, run_id, run_created_at, seq, fencing_token,"
            " state_schema_version, payload_bytes, payload_sha256) VALUES (%s, %s, %s, 1, 1, 1, 0, %s)",
            (TENANT_A, run_id, created_at, TOKEN_HASH),
        )


def test_root_runs_share_one_run_key_namespace(db: psycopg.Connection[tuple[object, ...]]) -> None:
    # NULLS NOT DISTINCT on 15+, a COALESCE expression index on 14: same guarantee.
    insert = "INSERT INTO agent.runs (tenant_id, kind, run_key) VALUES (%s, 'demo', 'nightly-2026-11-29')"
    db.execute(insert, (TENANT_A,))
    with pytest.raises(errors.UniqueViolation, match="runs_run_key_key"):
        db.execute(insert, (TENANT_A,))
    db.execute(insert, (TENANT_B,))  # another tenant's namespace


def test_partitions_are_created_ahead_and_dropped_after_retention(
    db: psycopg.Connection[tuple[object, ...]],
) -> None:
    done = maintained(db, "60 days")
    assert Counter(action for action, _ in done).keys() >= {"create", "detach", "drop"}
    for table in ("checkpoints", "events"):
        assert ("create", table) in done and ("drop", table) in done


def test_row_level_security_isolates_tenants_for_the_app_role(pg_server: PostgresServer) -> None:
    profile = with_version(example_profiles()["newest-engine"], pg_server.version)
    assert profile.tenancy.row_level_security
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as db:
        install_schema(db, derive(profile))
        for tenant in (TENANT_A, TENANT_B):
            db.execute("INSERT INTO agent.tenants (tenant_id, name) VALUES (%s, 't')", (tenant,))
            db.execute("INSERT INTO agent.runs (tenant_id, kind) VALUES (%s, 'demo')", (tenant,))
        with db.transaction():
            db.execute("SET LOCAL ROLE agent_app")
            db.execute("SELECT set_config('agentddl.tenant', %s, true)", (str(TENANT_A),))
            visible = db.execute("SELECT DISTINCT tenant_id FROM agent.runs").fetchall()
            assert visible == [(TENANT_A,)]
            with pytest.raises(errors.InsufficientPrivilege, match="row-level security"), db.transaction():
                db.execute("INSERT INTO agent.runs (tenant_id, kind) VALUES (%s, 'x')", (TENANT_B,))
            updated = db.execute("UPDATE agent.runs SET priority = 5 WHERE tenant_id = %s", (TENANT_B,))
            assert updated.rowcount == 0


def test_partition_bounds_do_not_depend_on_the_sessions_date_settings(pg_server: PostgresServer) -> None:
    """Bounds are written as text and read back from pg_get_expr: a session with another
    DateStyle and time zone (IST reads back as Israel time) must still get UTC days, or
    the next ordinary run creates a partition that overlaps and maintenance stops."""
    profile = with_version(example_profiles()["default"], pg_server.version)
    with pg_server.scratch_database() as dsn, psycopg.connect(dsn, autocommit=True) as db:
        db.execute("SET DateStyle = 'SQL, DMY'")
        db.execute("SET TimeZone = 'Asia/Kolkata'")
        install_schema(db, derive(profile))
        db.execute("RESET DateStyle")
        db.execute("SET TimeZone = 'UTC'")
        lowers = db.execute(
            "SELECT substring(pg_get_expr(relpartbound, oid) FROM 'FROM \\(''([^'']+)''\\)')::timestamptz"
            " FROM pg_class WHERE relispartition AND relkind = 'r'"
        ).fetchall()
        assert lowers and all(lower == lower.replace(hour=0, minute=0) for (lower,) in lowers)  # type: ignore[attr-defined]
        db.execute("CALL agent.maintain_partitions(now() + interval '1 day')")


def seed_old_checkpoint_chain(db: psycopg.Connection[tuple[object, ...]]) -> None:
    """A run created 40 days ago with checkpoints 1 <- 2 <- 3, in its partition."""
    db.execute("CALL agent.maintain_partitions(now() - interval '40 days')")
    db.execute(
        "INSERT INTO agent.runs (tenant_id, kind, created_at) VALUES (%s, 'old', now() - interval '40 days')",
        (TENANT_A,),
    )
    db.execute(
        "INSERT INTO agent.checkpoints (tenant_id, run_id, run_created_at, seq, parent_seq,"
        " fencing_token, state_schema_version, payload, payload_bytes, payload_sha256)"
        " SELECT tenant_id, run_id, created_at, s, nullif(s - 1, 0), 1, 1, '{}', 2, sha256('x')"
        " FROM agent.runs, generate_series(1, 3) AS s WHERE kind = 'old'"
    )


def maintained(db: psycopg.Connection[tuple[object, ...]], at: str) -> list[tuple[str, str]]:
    """CALL maintain_partitions dated `at` ahead: (action, table) of each step it reports
    (a NOTICE per step done, a WARNING per step it gave up on: '<action>_failed')."""
    said: list[tuple[str, str]] = []

    def hear(notice: psycopg.errors.Diagnostic) -> None:
        words = (notice.message_primary or "").removeprefix("maintain_partitions: ").split()
        failed = notice.severity_nonlocalized == "WARNING"
        said.append((words[0] + ("_failed" if failed else ""), words[1].split("_p")[0]))

    db.add_notice_handler(hear)
    try:
        db.execute(f"CALL agent.maintain_partitions(now() + interval '{at}')")
    finally:
        db.remove_notice_handler(hear)
    return said


def maintain(db: psycopg.Connection[tuple[object, ...]], at: str) -> set[tuple[str, str]]:
    return set(maintained(db, at))


def test_a_checkpoint_chain_expires_with_its_partition(db: psycopg.Connection[tuple[object, ...]]) -> None:
    """A self-referencing FK on checkpoints made every expired partition with a checkpoint
    chain undetachable ("removing partition violates foreign key constraint"): retention
    never dropped a checkpoints partition. The parent is checked by a trigger instead."""
    seed_old_checkpoint_chain(db)
    assert ("drop", "checkpoints") in maintain(db, "0 days")
    assert db.execute("SELECT count(*) FROM agent.checkpoints").fetchone() == (0,)


def test_a_checkpoints_parent_must_exist_in_its_run(db: psycopg.Connection[tuple[object, ...]]) -> None:
    run_id, created_at = run_of(db, TENANT_A)
    insert = (
        "INSERT INTO agent.checkpoints (tenant_id, run_id, run_created_at, seq, parent_seq,"
        " fencing_token, state_schema_version, payload, payload_bytes, payload_sha256)"
        " VALUES (%s, %s, %s, %s, %s, 1, 1, '{}', 2, sha256('x'))"
    )
    db.execute(insert, (TENANT_A, run_id, created_at, 1, None))
    db.execute(insert, (TENANT_A, run_id, created_at, 2, 1))
    with pytest.raises(errors.ForeignKeyViolation, match="parent checkpoint 4 does not exist"):
        db.execute(insert, (TENANT_A, run_id, created_at, 5, 4))
    other_run, other_created = run_of(db, TENANT_B)
    with pytest.raises(errors.ForeignKeyViolation):  # seq 1 exists, but in another run
        db.execute(insert, (TENANT_B, other_run, other_created, 2, 1))


def test_a_failed_partition_drop_does_not_undo_the_runway(db: psycopg.Connection[tuple[object, ...]]) -> None:
    """An expired partition that can't be dropped (here a view on it; a lock timeout that
    outlasts the retries in production) is kept and reported, while the partitions
    created ahead and the other drops still commit (each step is a transaction of its
    own). One error used to roll back the whole run, every run, until the runway ran out
    and writes failed."""
    seed_old_checkpoint_chain(db)
    old = db.execute(
        "SELECT 'checkpoints_p' || to_char((now() - interval '40 days') AT TIME ZONE 'UTC', 'YYYYMMDD')"
    ).fetchone()
    assert old is not None
    db.execute(f"CREATE VIEW agent.pinned AS SELECT * FROM agent.{old[0]}")
    actions = maintain(db, "10 days")
    assert {("create", "checkpoints"), ("create", "events"), ("drop", "events")} <= actions
    assert ("drop_failed", "checkpoints") in actions
    ahead = db.execute(
        "SELECT count(*) FROM pg_class"
        " WHERE relname = 'events_p' || to_char((now() + interval '14 days') AT TIME ZONE 'UTC', 'YYYYMMDD')"
    ).fetchone()
    assert ahead == (1,)  # committed despite the failed drop


def test_maintenance_after_an_outage_fills_the_gap(db: psycopg.Connection[tuple[object, ...]]) -> None:
    """Maintenance stopped for longer than the runway (PLAN.md 5.1a): runs created in the
    gap have no history partition. Running it again must create the missing periods the
    retention still covers, not only today's and the runway's, or those runs never write."""
    maintain(db, "10 days")  # the outage ends: days +5..+9 were never created
    late = db.execute(
        "INSERT INTO agent.runs (tenant_id, kind, created_at)"
        " VALUES (%s, 'gap', now() + interval '7 days') RETURNING run_id, created_at",
        (TENANT_A,),
    ).fetchone()
    assert late is not None
    db.execute(
        "INSERT INTO agent.events (tenant_id, run_id, run_created_at, seq, kind, actor)"
        " VALUES (%s, %s, %s, 1, 'step.started', 'agent')",
        (TENANT_A, *late),
    )


def test_generated_ids_are_time_ordered_version_7(db: psycopg.Connection[tuple[object, ...]]) -> None:
    """uuidv7() on 18, the schema's uuid_v7() before: new keys land on the right edge of the
    B-trees (a random uuid puts each insert on a random leaf). Each id's 48-bit prefix is
    the server's clock (Unix ms) while its insert ran, read on the server before and after
    it (not this process's clock: the server may be another machine); the next insert waits
    until the server's clock has passed that millisecond, however long that takes."""
    ids: list[uuid.UUID] = []
    for n in range(6):
        before = server_ms(db)
        row = db.execute(
            "INSERT INTO agent.runs (tenant_id, kind) VALUES (%s, %s) RETURNING run_id",
            (TENANT_A, f"ordered-{n}"),
        ).fetchone()
        after = server_ms(db)
        assert row is not None and isinstance(row[0], uuid.UUID)
        ids.append(row[0])
        stamp = row[0].int >> 80
        assert int(before) <= stamp <= int(after) + 1, (before, stamp, after)  # uuid_v7(): rounded
        while server_ms(db) < stamp + 1:  # a later millisecond: the prefix alone orders them
            pass
    assert all(i.version == 7 and i.variant == uuid.RFC_4122 for i in ids)
    assert ids == sorted(ids) and len(set(ids)) == 6


def server_ms(db: psycopg.Connection[tuple[object, ...]]) -> float:
    row = db.execute("SELECT extract(epoch FROM clock_timestamp()) * 1000").fetchone()
    assert row is not None
    return float(row[0])  # type: ignore[arg-type]
