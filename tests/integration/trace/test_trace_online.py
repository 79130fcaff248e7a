"""Alembic revisions traced online: Alembic upgrades the scratch database and every
statement is traced where it runs, loops included, on the revision line that issued it."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from profile_changes import key_changes
from test_trace_cli import REVISION_HEAD, SCHEMA

from agentddl.checks.cli.main import main
from agentddl.checks.db import PostgresServer
from agentddl.checks.trace import TraceResult
from agentddl.checks.trace.tracing import TraceOptions, trace_migrations
from agentddl.checks.trace.types import StatementTrace
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.output import write_files
from agentddl.generator.revision.next import Request, plan_generation

ADD_COLUMN = '    op.add_column("orders", sa.Column("priority", sa.Integer()))\n'


def delta_revision(project: Path, version: int) -> tuple[Path, SchemaModel]:
    """`agentddl generate` of a profile, then of one whose lower volume tier gives the
    partitioned events table a B-tree index instead of BRIN: the second revision (the
    delta) builds it on each partition in a loop; it is traced on the first profile's
    schema (the model returned)."""
    old, new = key_changes(version)["volume_tier_down"]
    for profile in (old, new):
        write_files(plan_generation(Request(profile, project)).files, project)
    _first, delta = sorted((project / "versions").glob("*.py"))
    return delta, derive(old)


def partitions_of(dsn: str, parent: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = %s::regclass ORDER BY 1",
            [parent],
        ).fetchall()
    return [name for (name,) in rows]


def line_of(text: str, needle: str) -> int:
    (line,) = [n for n, source in enumerate(text.splitlines(), start=1) if needle in source]
    return line


def test_a_delta_revision_traces_the_index_built_on_each_partition(
    trace_server: PostgresServer, tmp_path: Path
) -> None:
    revision, model = delta_revision(tmp_path / "project", trace_server.version)
    seen: list[str] = []

    @contextlib.contextmanager
    def partitions(dsn: str) -> Iterator[None]:  # read on the scratch database before the run
        seen.extend(partitions_of(dsn, "agent.events"))
        yield

    result = trace_migrations(trace_server, [revision], TraceOptions(model=model, alongside=partitions))
    text = revision.read_text(encoding="utf-8")
    assert len(seen) >= 2 and all(s.error is None for s in result.statements)
    builds = _matching(result, r"CREATE INDEX CONCURRENTLY (\S+) ON (\S+) \(created_at\)")
    attaches = _matching(result, r"ALTER INDEX agent\.events_created_at_idx_new ATTACH PARTITION (\S+)")
    assert [partition for _trace, (_index, partition) in builds] == seen  # every partition, in order
    assert [f"agent.{index}" for _trace, (index, _p) in builds] == [a for _trace, (a,) in attaches]
    for (build, (_index, partition)), (attach, _attached) in zip(builds, attaches, strict=True):
        assert (build.file, build.line) == (
            str(revision),
            line_of(text, "CONCURRENTLY {child} ON {partition}"),
        )
        assert attach.line == line_of(text, 'ATTACH PARTITION {qualified}")')
        assert not build.in_transaction and _modes(build)[partition] == "ShareUpdateExclusiveLock"
        assert partition in build.scanned  # the build read the partition
        assert _modes(attach).get(partition) and _modes(attach).get("agent.events")
        assert not attach.in_transaction  # its own transaction in the autocommit block
    assert not result.findings
    # Read offline, the loop is a comment: the step that swaps the index in finds it missing.
    offline = trace_migrations(trace_server, [revision], TraceOptions(model=model, offline=True))
    assert not _matching(offline, r"CREATE INDEX CONCURRENTLY (\S+) ON (\S+) \(created_at\)")
    (failed,) = [s for s in offline.statements if s.error is not None]
    assert "an earlier step did not finish: run this revision online" in failed.error


def _matching(result: TraceResult, pattern: str) -> list[tuple[StatementTrace, tuple[str, ...]]]:
    found = [(s, re.match(pattern, s.sql)) for s in result.statements]
    return [(s, match.groups()) for s, match in found if match is not None]


def _modes(trace: StatementTrace) -> dict[str, str]:
    return {lock.relation: lock.mode for lock in trace.locks}


@pytest.mark.parametrize(
    ("before", "timeout_ms"),
    [
        ("", 0),
        ("""    op.execute("DO $$ BEGIN PERFORM set_config('lock_timeout', '2s', false); END $$")\n""", 2000),
        ("""    op.execute("DO $$ BEGIN PERFORM set_config('lock_timeout', '3s', true); END $$")\n""", 3000),
        ("""    op.execute("SET lock_timeout = '4s'")\n""", 4000),
    ],
    ids=["none", "do-block-session", "do-block-transaction", "op-execute-set"],
)
def test_a_lock_timeout_set_by_the_revision_is_seen(
    trace_server: PostgresServer, tmp_path: Path, before: str, timeout_ms: int
) -> None:
    revision = tmp_path / "0002_note.py"
    revision.write_text(REVISION_HEAD + before + ADD_COLUMN, encoding="utf-8")
    result = trace_migrations(trace_server, [revision], TraceOptions(schema_files=[SCHEMA]))
    add = result.statements[-1]
    assert add.sql.startswith("ALTER TABLE orders ADD COLUMN priority INTEGER")
    assert add.line == 10 if before else 9
    assert add.in_transaction and add.lock_timeout_ms == timeout_ms
    assert _modes(add)["public.orders"] == "AccessExclusiveLock"
    assert add.lock_held_ms >= add.duration_ms  # held until Alembic's COMMIT
    flagged = [(f.file, f.line) for f in result.findings if f.code == "ADT105"]
    assert flagged == ([] if timeout_ms else [(str(revision), add.line)])


def test_a_failing_statement_stops_the_revision_and_rolls_it_back(
    trace_server: PostgresServer, tmp_path: Path
) -> None:
    revision = tmp_path / "0002_broken.py"
    body = ADD_COLUMN + '    op.execute("UPDATE nowhere SET x = 1")\n' + '    op.execute("SELECT 1")\n'
    revision.write_text(REVISION_HEAD + body, encoding="utf-8")
    result = trace_migrations(trace_server, [revision], TraceOptions(schema_files=[SCHEMA]))
    assert [(s.line, (s.error or "")[:5]) for s in result.statements] == [(9, ""), (10, "42P01")]
    assert result.statements[0].lock_held_ms > 0  # held until the ROLLBACK
    assert "ADT106" in {f.code for f in result.findings}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '    raise RuntimeError("needs the app")\n',
            "0002_bad.py:10: the revision failed when Alembic ran it: ",
        ),
        ("    pass\nimport not_a_module_anywhere\n", "0002_bad.py:11: Alembic cannot load this revision: "),
    ],
    ids=["raises", "import"],
)
def test_a_revision_that_cannot_run_is_one_line_exit_2(
    trace_server: PostgresServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str
) -> None:
    revision = tmp_path / "0002_bad.py"
    revision.write_text(REVISION_HEAD + ADD_COLUMN + body, encoding="utf-8")
    args = ["trace", str(revision), "--schema-sql", str(SCHEMA), "--server", trace_server.admin_dsn]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert f"{tmp_path}/{message}" in captured.err


def test_the_version_table_of_a_copied_database_is_left_alone(
    trace_server: PostgresServer, tmp_path: Path
) -> None:
    """A copy of a database already at this revision (its alembic_version says so): the
    revision still runs, under an Alembic version table of trace's own, dropped after."""
    revision = tmp_path / "0002_priority.py"
    revision.write_text(REVISION_HEAD + ADD_COLUMN, encoding="utf-8")
    after: list[list[tuple[str]]] = []

    @contextlib.contextmanager
    def at_head(dsn: str) -> Iterator[None]:  # before the run (a --schema-sql file leaves it out)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)")
            conn.execute("INSERT INTO alembic_version VALUES ('0002')")
        yield

    def read_back(dsn: str) -> None:
        with psycopg.connect(dsn) as conn:
            after.append(
                conn.execute(
                    "SELECT tablename FROM pg_tables WHERE tablename ~ 'version' AND schemaname = 'public'"
                ).fetchall()
            )
            after.append(conn.execute("SELECT version_num FROM alembic_version").fetchall())

    options = TraceOptions(schema_files=[SCHEMA], alongside=at_head, after=read_back)
    result = trace_migrations(trace_server, [revision], options)
    assert [s.line for s in result.statements] == [9] and result.statements[0].error is None
    assert after == [[("alembic_version",)], [("0002",)]]
