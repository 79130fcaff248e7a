"""Alembic revisions -> the SQL `alembic upgrade --sql` prints for each one.

Alembic's own offline mode renders each revision (`EnvironmentContext` with `as_sql`, our
env.py, the output in `Config(output_buffer=...)`), from a staged copy of the revisions
(`staging`); every statement is marked with the line of the `op.*` call that emitted it
(`markers`, `offline_env`), so findings land on the revision file.
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentddl.checks.alembic.environment import (
    environment_versions,
    is_environment,
    revision_files,
    revision_identity,
)
from agentddl.checks.alembic.ignores import file_ignores
from agentddl.checks.alembic.markers import source_markers
from agentddl.checks.alembic.staging import (
    NOT_A_REVISION,
    REVISION_FILE_KEY,
    StagedRevision,
    stage,
    staged_config,
)

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext, RevisionStep
    from alembic.script import ScriptDirectory

# Readers of revisions (lint, trace) find, list and order them with these too.
__all__ = [
    "RevisionSQL",
    "environment_versions",
    "is_environment",
    "offline_sql",
    "revision_files",
    "revision_identity",
]


@dataclass
class RevisionSQL:
    """One revision's offline SQL, or why it could not be produced."""

    path: Path  # the revision file as the user named it
    sql: str = ""
    error: str | None = None
    markers: dict[int, int] = field(default_factory=dict)  # SQL line -> revision line
    error_line: int = 1  # where in the revision rendering stopped
    broken: bool = False  # the script itself is invalid (not just unrenderable offline)


def offline_sql(revisions: list[Path]) -> list[RevisionSQL]:
    """The offline SQL of each revision file. Missing parents become empty stubs, so a
    single revision lints on its own; a broken revision yields an error, not a crash.
    Revisions are loaded once for the batch; if any fails to load, each is run alone."""
    with tempfile.TemporaryDirectory(prefix="agentddl-alembic-") as temp:
        try:
            return _render(revisions, Path(temp) / "batch")
        except _LoadError:
            results = []
            for number, path in enumerate(revisions):
                try:
                    results.extend(_render([path], Path(temp) / f"single{number}"))
                except _LoadError as error:
                    results.append(RevisionSQL(path, error=str(error), broken=error.broken))
            return results


class _LoadError(Exception):
    """Alembic could not load the staged revision scripts."""

    def __init__(self, message: str, broken: bool) -> None:
        super().__init__(message)
        self.broken = broken  # a Python syntax error, not a missing import


def _render(revisions: list[Path], root: Path) -> list[RevisionSQL]:
    from alembic.script import ScriptDirectory

    staged = stage(revisions, root)
    buffer = io.StringIO()
    config = staged_config(root, output_buffer=buffer)
    config.set_main_option("sqlalchemy.url", "postgresql://")
    script = ScriptDirectory.from_config(config)
    try:
        script.revision_map.get_revisions("heads")  # imports every revision script
    except Exception as error:  # revision scripts are user code
        broken = isinstance(error, SyntaxError)
        raise _LoadError(f"{type(error).__name__}: {error}", broken) from None
    return [
        _run_one(script, config, buffer, path, staged[path])
        if path in staged
        else RevisionSQL(path, error=NOT_A_REVISION, broken=True)
        for path in revisions
    ]


def _run_one(
    script: ScriptDirectory, config: Config, buffer: io.StringIO, original: Path, staged: StagedRevision
) -> RevisionSQL:
    """What `alembic upgrade <down>:<revision> --sql` prints, with source markers."""
    from alembic.runtime.environment import EnvironmentContext

    buffer.seek(0)
    buffer.truncate()
    config.attributes[REVISION_FILE_KEY] = str(staged.copy)

    def upgrade(heads: Any, context: MigrationContext) -> list[RevisionStep]:
        return upgrade_steps(script, staged.revision, heads)

    environment = EnvironmentContext(
        config, script, fn=upgrade, as_sql=True, starting_rev=staged.down, destination_rev=staged.revision
    )
    try:
        with environment:
            script.run_env()
    except Exception as error:  # user code, e.g. op.get_bind() data migrations, fails offline
        partial = file_ignores(original) + buffer.getvalue()
        return RevisionSQL(
            original,
            sql=partial,
            markers=source_markers(partial),
            error=f"{type(error).__name__}: {error}",
            error_line=_failing_line(error, staged.copy),
        )
    sql = file_ignores(original) + buffer.getvalue()
    return RevisionSQL(original, sql=sql, markers=source_markers(sql))


def upgrade_steps(script: ScriptDirectory, destination: str, heads: Any) -> list[RevisionStep]:
    """The steps `alembic upgrade heads:destination` runs, oldest first: what
    `alembic.command.upgrade` asks of the script directory, from its public API."""
    from alembic.runtime.migration import MigrationStep

    revisions = script.iterate_revisions(destination, heads, implicit_base=True)
    return [MigrationStep.upgrade_from_script(script.revision_map, s) for s in reversed(list(revisions))]


def _failing_line(error: BaseException, copy: Path) -> int:
    """The revision line the exception passed through last (1 if none)."""
    line, trace = 1, error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == str(copy):
            line = trace.tb_lineno
        trace = trace.tb_next
    return line
