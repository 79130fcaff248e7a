"""The body of the staged env.py: Alembic's offline mode, with hooks on the statements it
writes.

Public Alembic API: `EnvironmentContext.configure` (offline: a URL, literal binds, one
transaction per revision), `MigrationContext.impl` (the dialect's `DefaultImpl`) and its
documented `static_output` (every line of offline output goes through it) and
`output_buffer`.

One private hook remains, `DefaultImpl._exec`: Alembic has no public per-statement hook
in offline mode. Every statement an op.* call emits (DDL, op.execute, events such as an
Enum's CREATE TYPE, MigrationContext.execute) passes through `_exec`, and only those:
`static_output` also carries the BEGIN/COMMIT of `autocommit_block()`, which must get no
marker, and the construct (which `existing_type=` hint to add) is only seen there.
`tests/unit/alembic/test_private_hooks.py` fails if Alembic changes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pglast

from agentddl.checks.alembic.hints import existing_column_hint
from agentddl.checks.alembic.markers import calling_line, mark
from agentddl.checks.alembic.staging import REVISION_FILE_KEY

Write = Callable[[str], None]


def run_offline(context: Any) -> None:
    """Configure offline mode, hook the statements of the revision being rendered, run."""
    config = context.config
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        transaction_per_migration=True,
    )
    install_hooks(context.get_context().impl, config.attributes[REVISION_FILE_KEY])
    with context.begin_transaction():
        context.run_migrations()


def install_hooks(impl: Any, revision_file: str) -> None:
    """Before each statement: its marker (and ignore comments); in it: its existing-column
    hint; after a trailing `-- comment`: Alembic's `;` on a line of its own."""
    original = impl._exec
    source = Path(revision_file).read_text(encoding="utf-8").splitlines()
    pending: list[str] = []  # a comment to put into the statement being written

    def _exec(construct: Any, *args: Any, **kwargs: Any) -> Any:
        line = calling_line(revision_file)
        if line is not None:
            impl.output_buffer.write(mark(line, source))
        pending[:] = existing_column_hint(construct, impl.dialect)
        try:
            return original(construct, *args, **kwargs)
        finally:
            pending.clear()

    impl._exec = _exec
    impl.static_output = _with_comment(_terminator_safe(impl.static_output), pending)


def _with_comment(static_output: Write, pending: list[str]) -> Write:
    def write(text: str) -> None:
        if pending and text.endswith(";"):
            text = f"{text[:-1]} {pending.pop()};"
        static_output(text)

    return write


def _terminator_safe(static_output: Write) -> Write:
    """Alembic appends `;` to op.execute() text; after a trailing `-- comment` that `;`
    would be commented out, so put it on its own line."""

    def write(text: str) -> None:
        body = text[:-1] if text.endswith(";") else None
        if body is not None and _ends_in_line_comment(body):
            text = body + "\n;"
        static_output(text)

    return write


def _ends_in_line_comment(sql: str) -> bool:
    try:
        tokens = pglast.parser.scan(sql)
    except pglast.parser.ParseError:
        return False
    return bool(tokens) and tokens[-1].name == "SQL_COMMENT"
