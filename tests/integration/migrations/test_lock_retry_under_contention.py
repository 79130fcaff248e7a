"""A delta revision's `locked()` loop under real contention: each strong-lock step waits
LOCK_TIMEOUT for its lock, gives up with lock_not_available and tries again after a pause,
up to LOCK_ATTEMPTS times. A reader holding a conflicting lock briefly (released once the
migration has been seen waiting, backing off and waiting again) delays the upgrade but
does not fail it; a reader holding it past the budget makes the upgrade fail with
lock_not_available (55P03) and leaves the schema as it was.

The revision is the default profile's `lease` change (two `SET DEFAULT` steps, each an
ACCESS EXCLUSIVE lock inside `locked()`), generated and applied as users do."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from profile_changes import key_changes

from agentddl.checks.db import PostgresServer
from agentddl.generator.output import write_files
from agentddl.generator.render.revision_helpers import LOCK_ATTEMPTS
from agentddl.generator.revision.next import Request, plan_generation

Connection = psycopg.Connection[tuple[object, ...]]
LOCKED_TABLE = "agent.run_queue"  # the first step's table: its failure changes nothing
DEFAULTS = """
SELECT table_name, column_default FROM information_schema.columns
WHERE table_schema = 'agent' AND table_name IN ('runs', 'run_queue') AND column_name = 'max_attempts'
ORDER BY table_name
"""
# The migration's session: what it waits on now (a lock on LOCKED_TABLE, or its backoff).
MIGRATION_STATE = """
SELECT a.wait_event_type, a.wait_event,
       EXISTS (SELECT FROM pg_locks AS l WHERE l.pid = a.pid AND NOT l.granted
               AND l.relation = CAST(%(table)s AS regclass))
FROM pg_stat_activity AS a
WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.pid <> %(holder)s
  AND a.query LIKE 'DO $agentddl$%%' AND a.state = 'active'
"""
GIVE_UP_SECONDS = 60.0  # a guard against a hang, never a measured bound


@dataclass
class Phases:
    """What the migration's session was seen doing, in order, repeats collapsed."""

    seen: list[str] = field(default_factory=list)

    def note(self, phase: str | None) -> None:
        if phase and (not self.seen or self.seen[-1] != phase):
            self.seen.append(phase)

    @property
    def waits(self) -> int:
        return self.seen.count("waiting on the lock")

    @property
    def retried(self) -> bool:
        """Waited, backed off (pg_sleep after lock_not_available), and waited again."""
        text = " > ".join(self.seen)
        return "waiting on the lock > backing off > waiting on the lock" in text


@dataclass(frozen=True)
class Project:
    dsn: str
    root: Path
    revision: Path

    def config(self) -> Config:
        config = Config(str(self.root / "alembic.ini"))
        config.attributes["dsn"] = self.dsn
        return config


@pytest.fixture
def project(pg_server_latest: PostgresServer, tmp_path: Path) -> Iterator[Project]:
    """The default profile applied (revision 0001), the lease change generated (0002)."""
    old, new = key_changes(pg_server_latest.version)["lease"]
    with pg_server_latest.scratch_database() as dsn:
        write_files(plan_generation(Request(old, tmp_path, alembic=True)).files, tmp_path)
        found = Project(dsn, tmp_path, tmp_path)
        command.upgrade(found.config(), "head")
        generation = plan_generation(Request(new, tmp_path, alembic=True))
        write_files(generation.files, tmp_path)
        (revision,) = generation.revisions
        yield Project(dsn, tmp_path, tmp_path / revision)


def _phase(conn: Connection, holder: int) -> str | None:
    row = conn.execute(MIGRATION_STATE, {"table": LOCKED_TABLE, "holder": holder}).fetchone()
    if row is None:
        return None
    wait_type, wait_event, waits_on_table = row
    if wait_type == "Lock" and waits_on_table:
        return "waiting on the lock"
    return "backing off" if wait_event == "PgSleep" else None


def _hold_while(
    project: Project, start: Callable[[], Future[None]], release: Callable[[Phases], bool]
) -> tuple[Future[None], Phases]:
    """A reader takes ACCESS SHARE on LOCKED_TABLE (it conflicts with the steps' ACCESS
    EXCLUSIVE), then the upgrade starts (`start()`: never before the lock is held, or it
    could finish first), and the reader holds it until `release(phases)` says so or the
    upgrade ends."""
    phases = Phases()
    with psycopg.connect(project.dsn) as holder, psycopg.connect(project.dsn, autocommit=True) as watch:
        holder.execute(f"LOCK TABLE {LOCKED_TABLE} IN ACCESS SHARE MODE")
        upgrade = start()
        deadline = time.monotonic() + GIVE_UP_SECONDS
        while not upgrade.done() and not release(phases):
            assert time.monotonic() < deadline, f"no end after {GIVE_UP_SECONDS}s: {phases.seen}"
            phases.note(_phase(watch, holder.info.backend_pid))
            time.sleep(0.002)
        holder.rollback()
    return upgrade, phases


def _defaults(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        found = {str(t): str(d) for t, d in conn.execute(DEFAULTS).fetchall()}
        (version,) = conn.execute("SELECT version_num FROM alembic_version").fetchone() or ("",)
    return {**found, "alembic_version": str(version)}


def test_a_lock_held_briefly_delays_the_upgrade_which_then_succeeds(project: Project) -> None:
    before = _defaults(project.dsn)
    with ThreadPoolExecutor(1) as pool:
        start = lambda: pool.submit(command.upgrade, project.config(), "head")  # noqa: E731
        upgrade, phases = _hold_while(project, start, lambda seen: seen.retried)
        upgrade.result(timeout=GIVE_UP_SECONDS)  # raises if the upgrade failed
    assert phases.retried, f"released before the migration retried: {phases.seen}"
    assert before == {"run_queue": "5", "runs": "5", "alembic_version": "0001"}
    assert _defaults(project.dsn) == {"run_queue": "9", "runs": "9", "alembic_version": "0002"}


def test_a_lock_held_past_the_budget_fails_the_upgrade_and_changes_nothing(project: Project) -> None:
    # The budget is the revision's own constant; 3 attempts instead of LOCK_ATTEMPTS
    # keeps the test to about a second (50 attempts back off for most of a minute).
    attempts = 3
    text = project.revision.read_text(encoding="utf-8")
    lowered = re.sub(r"^LOCK_ATTEMPTS = \d+$", f"LOCK_ATTEMPTS = {attempts}", text, flags=re.MULTILINE)
    assert f"LOCK_ATTEMPTS = {LOCK_ATTEMPTS}" in text and lowered != text
    project.revision.write_text(lowered, encoding="utf-8")
    before = _defaults(project.dsn)
    with ThreadPoolExecutor(1) as pool:
        start = lambda: pool.submit(command.upgrade, project.config(), "head")  # noqa: E731
        upgrade, phases = _hold_while(project, start, lambda seen: False)  # held until the upgrade ends
        with pytest.raises(CommandError, match="lock timeout") as failure:
            upgrade.result(timeout=GIVE_UP_SECONDS)
    # env.py turns the driver's error into one line; the original is the exception's context.
    original = failure.value.__context__
    assert getattr(getattr(original, "orig", None), "sqlstate", None) == "55P03", repr(original)
    assert 2 <= phases.waits <= attempts, phases.seen  # it retried, and stopped at the budget
    assert _defaults(project.dsn) == before == {"run_queue": "5", "runs": "5", "alembic_version": "0001"}
