"""Every profile change on real PostgreSQL: from A's revision chain, `alembic upgrade
head` reaches the catalog of a fresh install of B, `alembic downgrade -1` returns to A's,
the rows written under A survive both ways, and `agentddl lint` finds no error in the
new revision.

One database per (server, A) is installed and seeded once and shared: each change
upgrades it and downgrades it back (a failed case reinstalls it)."""

from __future__ import annotations

import contextlib
import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from profile_changes import key_changes, strategy_pairs

from agentddl.checks.cli.main import main
from agentddl.checks.db.catalog import KINDS, Snapshot, diff, read_snapshot
from agentddl.checks.db.connect import connect
from agentddl.checks.db.declared import model_roles
from agentddl.checks.db.install import install_schema
from agentddl.generator.model import derive
from agentddl.generator.model.layout import RUN_ROW_QUEUE
from agentddl.generator.output import write_files
from agentddl.generator.profile import Profile, load_default_profile
from agentddl.generator.profile.canonical import canonical_text
from agentddl.generator.render.alembic import render_revision
from agentddl.generator.revision.next import Request, plan_generation

ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"


def matrix_majors(config: pytest.Config) -> list[int | None]:
    """15 and 18 where tested (the issue's pair), else the newest tested server. The root
    conftest knows the tested majors (conftest modules can't import each other)."""
    majors = config.pluginmanager.get_plugin(str(ROOT_CONFTEST)).tested_majors()
    return [m for m in majors if m in (15, 18)] or list(majors[-1:])


def cases(major: int | None, strategies: bool = False) -> dict[str, tuple[Profile, Profile]]:
    """Every key change on `major`; every ordered pair of lock strategies too, on one server."""
    version = major or 16
    found = key_changes(version)
    if strategies:
        found |= {f"strategy_{name}": pair for name, pair in strategy_pairs(version).items()}
    return found


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    majors = matrix_majors(metafunc.config)
    if "change" in metafunc.fixturenames:
        pairs = [(m, n) for m in majors for n in cases(m, strategies=m == majors[-1])]
        ids = [f"pg{m}-{n}" if m is not None else f"dsn-{n}" for m, n in pairs]
        metafunc.parametrize("change", pairs, ids=ids)
    if "newest_major" in metafunc.fixturenames:
        metafunc.parametrize("newest_major", majors[-1:], ids=lambda m: f"pg{m}")


COMPARED = [kind for kind in KINDS if kind != "partitions"]  # maintenance makes them as time passes

SEED = """
INSERT INTO agent.tenants (tenant_id, name)
SELECT gen_random_uuid(), 'tenant ' || i FROM generate_series(1, 2) AS i;
INSERT INTO agent.runs (tenant_id, kind, status, finished_at, run_key)
SELECT t.tenant_id, 'workflow', CASE WHEN i % 3 = 0 THEN 'succeeded' ELSE 'queued' END,
       CASE WHEN i % 3 = 0 THEN now() END, 'key-' || i
FROM agent.tenants AS t, generate_series(1, 10) AS i;
INSERT INTO agent.checkpoints (tenant_id, run_id, run_created_at, seq, fencing_token,
    state_schema_version, payload, payload_bytes, payload_sha256)
SELECT r.tenant_id, r.run_id, r.created_at, s, 0, 1, jsonb_build_object('step', s), 12, sha256('x'::bytea)
FROM agent.runs AS r, generate_series(1, 3) AS s;
INSERT INTO agent.events (tenant_id, run_id, run_created_at, seq, kind, actor, payload)
SELECT r.tenant_id, r.run_id, r.created_at, s, 'step.done', 'system', jsonb_build_object('n', s)
FROM agent.runs AS r, generate_series(1, 5) AS s;
INSERT INTO agent.operations (tenant_id, idempotency_key, run_id, input_hash, fencing_token)
SELECT r.tenant_id, 'op-' || r.run_id, r.run_id, sha256('in'::bytea), 0 FROM agent.runs AS r;
INSERT INTO agent.outbox (tenant_id, run_id, topic, payload)
SELECT r.tenant_id, r.run_id, 'run.started', '{}' FROM agent.runs AS r;
"""
# The runs' own columns, not the whole row: a column a change adds (sessions) is not
# a change to the rows written before it.
FINGERPRINT = """
SELECT (SELECT count(*) FROM agent.runs), (SELECT count(*) FROM agent.events),
       (SELECT count(*) FROM agent.checkpoints), (SELECT count(*) FROM agent.operations),
       (SELECT count(*) FROM agent.outbox),
       (SELECT md5(string_agg((r.tenant_id, r.run_id, r.created_at, r.run_key, r.kind, r.status,
            r.version, r.input, r.result, r.finished_at)::text, '|' ORDER BY r.run_id))
        FROM agent.runs AS r),
       (SELECT md5(string_agg(e::text, '|' ORDER BY e.run_id, e.seq)) FROM agent.events AS e),
       (SELECT md5(string_agg(c::text, '|' ORDER BY c.run_id, c.seq)) FROM agent.checkpoints AS c)
"""


def catalog(dsn: str, profile: Profile) -> Snapshot:
    """The schema's catalog, with the privileges of the profile's roles."""
    with connect(dsn, read_only=True) as connection:
        return read_snapshot(connection, "agent", model_roles(derive(profile)))


def fingerprint(dsn: str) -> tuple[Any, ...]:
    with connect(dsn) as connection:
        row = connection.execute(FINGERPRINT).fetchone()
    assert row is not None and row[0] == 20 and row[1] == 100
    return tuple(row)


def alembic_config(project: Path, dsn: str) -> Config:
    config = Config(str(project / "alembic.ini"))
    config.attributes["dsn"] = dsn
    return config


def generate(profile: Profile, project: Path) -> tuple[str, ...]:
    """The revisions written: one, or two for a role handover."""
    generation = plan_generation(Request(profile, project, alembic=True))
    write_files(generation.files, project)
    return generation.revisions


class Installs:
    """A database per (server, profile A) at A's first revision, seeded, shared."""

    def __init__(self, servers: Any, root: Path) -> None:
        self.servers, self.root = servers, root
        self.found: dict[tuple[int | None, str], tuple[str, Path]] = {}
        self.stack = contextlib.ExitStack()

    def get(self, major: int | None, profile: Profile) -> tuple[str, Path]:
        key = (major, canonical_text(profile))
        if key not in self.found:
            dsn = self.stack.enter_context(self.servers.get(major).scratch_database())
            project = self.root / f"project{len(self.found)}"
            generate(profile, project)
            command.upgrade(alembic_config(project, dsn), "head")
            with connect(dsn) as connection:
                connection.execute(SEED)
            self.found[key] = (dsn, project)
        return self.found[key]

    def forget(self, major: int | None, profile: Profile) -> None:
        self.found.pop((major, canonical_text(profile)), None)


class FreshCatalogs:
    """The catalog of a fresh schema.sql install of a profile, per server, cached."""

    def __init__(self, servers: Any) -> None:
        self.servers = servers
        self.found: dict[tuple[int | None, str], Snapshot] = {}

    def get(self, major: int | None, profile: Profile) -> Snapshot:
        key = (major, canonical_text(profile))
        if key not in self.found:
            with self.servers.get(major).scratch_database() as dsn:
                with connect(dsn) as connection:
                    install_schema(connection, derive(profile))
                self.found[key] = catalog(dsn, profile)
        return self.found[key]


@pytest.fixture(scope="module")
def installs(pg_servers: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installs]:
    found = Installs(pg_servers, tmp_path_factory.mktemp("chains"))
    with found.stack:
        yield found


@pytest.fixture(scope="module")
def fresh(pg_servers: Any) -> FreshCatalogs:
    return FreshCatalogs(pg_servers)


def lint_errors(revision: Path, major: int, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    code = main(["lint", str(revision), "--format", "json", "--pg-version", str(major)])
    report = json.loads(capsys.readouterr().out)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == (1 if errors else 0)
    return errors


def assert_same_catalog(found: Snapshot, expected: Snapshot) -> None:
    assert [str(d) for d in diff(expected, found, COMPARED)] == []


def test_profile_change_upgrades_to_a_fresh_install_and_back(
    change: tuple[int | None, str],
    installs: Installs,
    fresh: FreshCatalogs,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    major, name = change
    old, new = cases(major, strategies=True)[name]
    dsn, chain = installs.get(major, old)
    project = tmp_path / "project"
    shutil.copytree(chain, project)
    revisions = generate(new, project)
    assert revisions and revisions[0].startswith("versions/0002_agentddl_")
    assert len(revisions) == (2 if name.startswith("roles_renamed") else 1)  # a role handover: two
    for revision in revisions:
        assert lint_errors(project / revision, new.engine.version, capsys) == []
    before = fingerprint(dsn)
    config = alembic_config(project, dsn)
    try:
        command.upgrade(config, "head")
        assert_same_catalog(catalog(dsn, new), fresh.get(major, new))
        assert fingerprint(dsn) == before
        command.downgrade(config, f"-{len(revisions)}")
        assert_same_catalog(catalog(dsn, old), fresh.get(major, old))
        assert fingerprint(dsn) == before
    except BaseException:
        installs.forget(major, old)  # left half-way: the next case installs afresh
        raise


PARTITIONS = """
SELECT substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([^'']+)''\\)')::timestamptz,
       substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']+)''\\)')::timestamptz
FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
WHERE i.inhparent = 'agent.events'::regclass ORDER BY 1
"""


@pytest.mark.parametrize("name", ["volume_tier_down", "volume_tier_up"])
def test_a_granularity_change_affects_only_future_partitions(
    name: str, newest_major: int | None, pg_servers: Any, tmp_path: Path
) -> None:
    major = newest_major
    old, new = cases(major)[name]
    size = {"day": 1, "week": 7}
    before_days = size[derive(old).table("events").partitioning.granularity]  # type: ignore[union-attr]
    after_days = size[derive(new).table("events").partitioning.granularity]  # type: ignore[union-attr]
    generate(old, tmp_path)
    with pg_servers.get(major).scratch_database() as dsn, connect(dsn) as connection:
        config = alembic_config(tmp_path, dsn)
        command.upgrade(config, "head")
        generate(new, tmp_path)
        command.upgrade(config, "head")
        for days in (0, 10, 20, 32):  # maintenance runs as time passes (retention: 30 days)
            connection.execute(
                f"CALL agent.maintain_partitions(now() + interval '{days} days')"
            )
        bounds = connection.execute(PARTITIONS).fetchall()
    assert all(upper == lower for (_, upper), (lower, _) in itertools.pairwise(bounds))  # no gap
    spans = [(upper - lower).days for lower, upper in bounds]
    assert before_days in spans  # the partitions made before the change keep their size
    assert spans[-1] == after_days  # the ones made after it have the new size


# Layout 1's live runs in every state the backfill meets: queued, waiting, running with its
# active attempt (the lease it holds), and a history whose last seq the counters continue.
LEGACY_LIVE = """
UPDATE agent.runs SET status = 'waiting', version = version + 1 WHERE run_key = 'key-1';
UPDATE agent.runs SET status = 'running', version = version + 1, fencing_token = 1, attempt_count = 1
WHERE run_key = 'key-2';
INSERT INTO agent.attempts (tenant_id, run_id, attempt_no, fencing_token, worker_id, lease_token_hash,
    lease_expires_at)
SELECT tenant_id, run_id, 1, 1, 'old-worker', sha256('old-token'::bytea), now() + interval '1 hour'
FROM agent.runs WHERE run_key = 'key-2';
"""
LIVE_SET = """
SELECT r.run_key, q.state, q.attempt_no, q.fencing_token, q.event_seq, q.checkpoint_seq,
       q.visible_at = 'infinity' AS never, q.worker_id
FROM agent.run_queue AS q JOIN agent.runs AS r USING (tenant_id, run_id)
WHERE r.tenant_id = (SELECT tenant_id FROM agent.tenants ORDER BY tenant_id LIMIT 1)
ORDER BY r.run_key
"""


def test_an_install_of_the_run_row_layout_moves_to_the_live_set_and_back(
    newest_major: int | None, pg_servers: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder whose last revision was rendered in layout 1 (queue and lease in the run
    row) gets the next revision from `agentddl generate`, never a rewrite: run_queue is
    created and filled with every live run (counters at the history's end, a running run's
    lease kept), the old indexes go, the catalog is a fresh install's, the rows are kept,
    today's claim takes the runs on; downgrade -1 returns to layout 1's catalog."""
    profile = load_default_profile()
    write_files(
        {"versions/0001_agentddl_schema.py": render_revision(derive(profile, RUN_ROW_QUEUE), "0001", None)},
        tmp_path,
    )
    generate(profile, tmp_path)  # the Alembic environment, and the next revision
    revision = next((tmp_path / "versions").glob("0002_agentddl_live_set.py"))
    assert "agentddl_layout = 2" in revision.read_text()
    assert lint_errors(revision, newest_major or 16, capsys) == []
    with pg_servers.get(newest_major).scratch_database() as dsn:
        config = alembic_config(tmp_path, dsn)
        command.upgrade(config, "0001")
        with connect(dsn) as connection:
            connection.execute(SEED)
            connection.execute(LEGACY_LIVE)
        before = fingerprint(dsn)
        command.upgrade(config, "head")
        with pg_servers.get(newest_major).scratch_database() as fresh_dsn, connect(fresh_dsn) as connection:
            install_schema(connection, derive(profile))
            assert_same_catalog(catalog(dsn, profile), catalog(fresh_dsn, profile))
        assert fingerprint(dsn) == before
        with connect(dsn) as connection:
            live = [tuple(row) for row in connection.execute(LIVE_SET).fetchall()]
            succeeded = connection.execute(
                "SELECT count(*) FROM agent.runs WHERE status = 'succeeded'"
                " AND NOT EXISTS (SELECT FROM agent.run_queue AS q WHERE q.run_id = runs.run_id)"
            ).fetchone()
        assert succeeded is not None and succeeded[0] == 6  # finished runs stay out of the live set
        by_key = {row[0]: row[1:] for row in live}
        assert by_key["key-1"] == ("waiting", 0, 0, 5, 3, True, None)
        assert by_key["key-2"] == ("running", 1, 1, 5, 3, False, "old-worker")
        assert by_key["key-4"] == ("queued", 0, 0, 5, 3, False, None)
        command.downgrade(config, "-1")
        with pg_servers.get(newest_major).scratch_database() as fresh_dsn, connect(fresh_dsn) as connection:
            install_schema(connection, derive(profile, RUN_ROW_QUEUE))
            assert_same_catalog(catalog(dsn, profile), catalog(fresh_dsn, profile))
        assert fingerprint(dsn) == before
