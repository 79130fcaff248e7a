"""Alembic internals the offline reader still relies on: each test fails if Alembic
changes one, and says why it is still needed.

Everything else goes through Alembic's public API (Config, ScriptDirectory,
EnvironmentContext, MigrationContext, alembic.command); see checks/alembic/offline_env.py.
"""

from __future__ import annotations

import inspect
import io
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.ddl.impl import DefaultImpl
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext, MigrationStep

from agentddl.checks.alembic.offline import offline_sql
from agentddl.checks.alembic.staging import REVISION_FILE_KEY, stage


def test_exec_is_the_one_funnel_of_op_statements_and_only_of_them() -> None:
    """Why `DefaultImpl._exec` is still wrapped: Alembic has no public per-statement hook
    in offline mode. Each op.* statement must get the marker of its op line, and
    `static_output` (public) also writes the BEGIN/COMMIT of `autocommit_block()`, which
    must not get one. So the markers need every op statement, an Enum's CREATE TYPE
    (emitted through the mock connection) and MigrationContext.execute to pass through
    `_exec(construct, ...)`, and BEGIN/COMMIT not to."""
    assert list(inspect.signature(DefaultImpl._exec).parameters)[:2] == ["self", "construct"]
    buffer = io.StringIO()
    context = MigrationContext.configure(
        dialect_name="postgresql", opts={"as_sql": True, "output_buffer": buffer, "literal_binds": True}
    )
    written: list[str] = []  # what each `_exec` call wrote
    original = context.impl._exec

    def _exec(construct: object, *args: object, **kwargs: object) -> object:
        start = len(buffer.getvalue())
        try:
            return original(construct, *args, **kwargs)
        finally:
            written.append(buffer.getvalue()[start:].strip())

    context.impl._exec = _exec  # type: ignore[method-assign]
    op = Operations(context)
    op.create_table("t", sa.Column("id", sa.Integer), sa.Column("m", sa.Enum("a", name="mood")))
    op.execute("UPDATE t SET id = 1")
    context.execute("DELETE FROM t")
    with context.autocommit_block():
        op.create_index("t_id", "t", ["id"], postgresql_concurrently=True)
    statements = [s.strip() for s in buffer.getvalue().split("\n\n") if s.strip()]
    assert [s.split(" (")[0] for s in statements] == [
        "CREATE TYPE mood AS ENUM",
        "CREATE TABLE t",
        "UPDATE t SET id = 1;",
        "DELETE FROM t;",
        "COMMIT;",
        "CREATE INDEX CONCURRENTLY t_id ON t",
        "BEGIN;",
    ]
    assert written == [s for s in statements if s not in ("COMMIT;", "BEGIN;")]


def test_upgrade_steps_are_what_alembic_upgrade_sql_runs(tmp_path: Path) -> None:
    """Why `MigrationStep.upgrade_from_script` (public name, undocumented) is used: the
    batch loads the revisions once and renders each in turn, which `alembic.command.upgrade`
    cannot do (it reloads every script per call: quadratic on a long history). Its steps
    must stay what `alembic upgrade <down>:<revision> --sql` runs."""
    assert callable(MigrationStep.upgrade_from_script)
    revision = tmp_path / "0002_add.py"
    revision.write_text(
        'import sqlalchemy as sa\nfrom alembic import op\n\nrevision = "0002"\ndown_revision = "0001"\n\n\n'
        'def upgrade():\n    op.add_column("t", sa.Column("a", sa.Integer()))\n'
        '    op.create_index("t_a", "t", ["a"])\n',
        encoding="utf-8",
    )
    (ours,) = offline_sql([revision])
    staged = stage([revision], tmp_path / "env")[revision]
    buffer = io.StringIO()
    config = Config(output_buffer=buffer)
    config.set_main_option("script_location", str(tmp_path / "env"))
    config.set_main_option("sqlalchemy.url", "postgresql://")
    config.attributes[REVISION_FILE_KEY] = str(staged.copy)
    command.upgrade(config, "0001:0002", sql=True)
    assert ours.error is None and "ADD COLUMN a INTEGER" in ours.sql
    assert ours.sql == buffer.getvalue()
